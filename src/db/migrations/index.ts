import type { Migration } from 'kysely';
import * as createFoundation from './20261121T235000-create-foundation';
import * as createSms from './20261122T020000-create-sms';
import * as createKnowledge from './20261122T010000-create-knowledge';
import * as createWebhookOutbox from './20261122T050000-create-webhook-outbox';
import * as createSmsSubmitAttempts from './20261122T060000-create-sms-submit-attempts';

/**
 * Every migration, listed explicitly (no filesystem scan, so bundling is safe). Names sort by time;
 * each area appends its own line.
 */
export const migrations: Record<string, Migration> = {
  '20261121T235000-create-foundation': createFoundation,
  '20261122T020000-create-sms': createSms,
  '20261122T010000-create-knowledge': createKnowledge,
  '20261122T050000-create-webhook-outbox': createWebhookOutbox,
  '20261122T060000-create-sms-submit-attempts': createSmsSubmitAttempts,
};
