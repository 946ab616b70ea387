import type { Migration } from 'kysely';
import * as createFoundation from './20261121T235000-create-foundation';

/**
 * Every migration, listed explicitly (no filesystem scan, so bundling is safe). Names sort by time;
 * each area appends its own line.
 */
export const migrations: Record<string, Migration> = {
  '20261121T235000-create-foundation': createFoundation,
};
