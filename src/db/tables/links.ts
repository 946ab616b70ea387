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
  /** The mode of the run that made the link: a test-mode link never redirects without showing its destination. */
  livemode: boolean;
  /** The run whose reply cited the url (null for links made outside a run). */
  run_id: string | null;
  conversation_id: string | null;
  url: string;
  clicks: Generated<number>;
  last_clicked_at: NullableTimestamp;
  created_at: Timestamp;
}

/**
 * A cited passage of a source without a url of its own, served at `/c/{token}` (title, section, text,
 * redacted). The token is derived from (account, run, source, passage) under a server key; only its
 * SHA-256 is stored. Rows go with their source (on delete cascade): deleting the source revokes its links.
 */
export interface CitationPageTable {
  token_hash: Buffer;
  account_id: string;
  livemode: boolean;
  source_id: string;
  run_id: string | null;
  title: string;
  section: string | null;
  content: string;
  created_at: Generated<Date>;
}
