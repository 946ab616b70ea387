import { createHash, createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { notFound } from '../domain/errors';
import { deriveKey } from '../domain/secret-box';
import type { Scope } from '../domain/principal';
import { redactText } from '../agents/guardrails/redaction';
import { CitationPageRepo } from './citation-page.repo';

/** Source types whose passages have no url of their own and get a citation page when cited. */
const PAGED_SOURCE_TYPES: ReadonlySet<string> = new Set(['document', 'record']);
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;
export const CITATION_PAGE_PATH = '/c';

export interface CitedPassage extends Scope {
  runId: string | null;
  sourceId: string;
  title: string;
  section: string | null;
  content: string;
}

/** What a citation page shows. */
export interface CitationPage {
  title: string;
  section: string | null;
  content: string;
}

/**
 * Citation pages: a passage cited from an uploaded document (or a record) has no url of its own, so the
 * service serves one at `{PUBLIC_BASE_URL}/c/{token}` showing its title, section and text (redacted), and
 * an SMS or email reply links there. The token is an HMAC of (account, run, source, passage) under a key
 * derived from SERVER_SECRET: the same citation always gets the same link (a retried step stores nothing
 * new), and 192 bits cannot be guessed. Only the token's SHA-256 is stored. A page goes with its source:
 * deleting the source revokes every link to it (404).
 */
export class CitationPagesService {
  private readonly repo = new CitationPageRepo();
  private readonly key: Buffer;

  constructor(private readonly deps: { db: Kysely<DB>; publicBaseUrl: string; serverSecret: string }) {
    this.key = deriveKey(deps.serverSecret, 'citation-page-token');
  }

  /** The page url of a cited passage, or null when its source has a url of its own (or is not the scope's). */
  async linkPassage(input: CitedPassage): Promise<string | null> {
    const source = await this.repo.getSourceOfScope(this.deps.db, input, input.sourceId);
    if (!source || !PAGED_SOURCE_TYPES.has(source.type)) return null;
    const token = createHmac('sha256', this.key)
      .update([input.accountId, input.runId ?? '', input.sourceId, input.content].join('\u0000'))
      .digest()
      .subarray(0, 24)
      .toString('base64url');
    await this.repo.insertPage(this.deps.db, {
      token_hash: hashToken(token),
      account_id: input.accountId,
      livemode: input.livemode,
      source_id: input.sourceId,
      run_id: input.runId,
      title: redactText(input.title).text,
      section: input.section === null ? null : redactText(input.section).text,
      content: redactText(input.content).text,
    });
    return `${this.deps.publicBaseUrl.replace(/\/+$/, '')}${CITATION_PAGE_PATH}/${token}`;
  }

  /** The page of a token; 404 resource_missing for a token never issued or whose source was deleted. */
  async readPage(input: { token: string }): Promise<CitationPage> {
    const row = TOKEN_PATTERN.test(input.token) ? await this.repo.getPage(this.deps.db, hashToken(input.token)) : undefined;
    if (!row) throw notFound('citation', input.token, 'token');
    return { title: row.title, section: row.section, content: row.content };
  }
}

const hashToken = (token: string) => createHash('sha256').update(token).digest();
