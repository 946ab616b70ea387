import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema';
import { notFound } from '../../domain/errors';
import { derivedId, IdPrefix } from '../../domain/ids';
import { deriveKey } from '../../domain/secret-box';
import type { EventsService } from '../../webhooks/events.service';
import { clickToken, openToken, verifyTrackingToken } from './email-tracking';
import { EmailRepo } from './email.repo';
import { toEmailObject } from './email.schemas';

/** Served paths (outside /v1: mail clients call them, not API clients). */
export const OPEN_PATH = '/e/o';
export const CLICK_PATH = '/e/c';

/**
 * Engagement tracking of sent emails: the open pixel and the click redirect, each with a signed token
 * (email-tracking.ts). The first open emits email.opened; the first click on each link emits
 * email.clicked (with its url); the email keeps the time of its first open and first click.
 */
export class EmailTrackingService {
  private readonly repo = new EmailRepo();
  private readonly key: Buffer;

  constructor(private readonly deps: { db: Kysely<DB>; events: EventsService; publicBaseUrl: string; serverSecret: string }) {
    this.key = deriveKey(deps.serverSecret, 'email-tracking');
  }

  private base() {
    return this.deps.publicBaseUrl.replace(/\/+$/, '');
  }

  openUrl(emailId: string): string {
    return `${this.base()}${OPEN_PATH}/${openToken(this.key, emailId)}.gif`;
  }

  clickUrl(emailId: string, url: string): string {
    return `${this.base()}${CLICK_PATH}/${clickToken(this.key, emailId, url)}?url=${encodeURIComponent(url)}`;
  }

  /** A valid open token records the open (once); an invalid one is 404. */
  async recordOpen(input: { token: string }): Promise<void> {
    const emailId = verifyTrackingToken(this.key, input.token.replace(/\.gif$/, ''), 'open');
    if (!emailId) throw notFound('email', input.token, 'token');
    await this.record(emailId, 'opened_at', 'email.opened', {});
  }

  /** A valid click token records the click and answers where to redirect; a forged one is 404 (no open redirect). */
  async recordClick(input: { token: string; url: string }): Promise<{ location: string }> {
    const emailId = /^https?:\/\//i.test(input.url) ? verifyTrackingToken(this.key, input.token, 'click', input.url) : undefined;
    if (!emailId) throw notFound('tracked link', input.token, 'token');
    await this.record(emailId, 'clicked_at', 'email.clicked', { url: input.url });
    return { location: input.url };
  }

  private async record(emailId: string, column: 'opened_at' | 'clicked_at', type: 'email.opened' | 'email.clicked', extra: { url?: string }) {
    const { db, events } = this.deps;
    const row = await this.repo.markEngagement(db, emailId, column);
    if (!row) throw notFound('email', emailId, 'token');
    await events.emit({
      accountId: row.account_id,
      livemode: row.livemode,
      type,
      data: { ...toEmailObject(row), ...extra },
      // Once per email (and per link for clicks): mail clients and scanners fetch the same URL again.
      eventId: derivedId(IdPrefix.event, row.id, type, extra.url ?? ''),
    });
  }
}
