import type { Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from './accounts';

/**
 * Short links served by the service at `/l/{code}` (a citation in an SMS reply). The code is derived
 * from (account, run, url) under a server key, so a retried shaping step makes the same link and
 * nobody can guess another link's code. `clicks` counts redirects served.
 */
export interface ShortLinkTable {
  code: string;
  account_id: string;
  /** The run whose reply cited the url (null for links made outside a run). */
  run_id: string | null;
  conversation_id: string | null;
  url: string;
  clicks: Generated<number>;
  last_clicked_at: NullableTimestamp;
  created_at: Timestamp;
}
