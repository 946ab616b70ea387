import { createHash, createHmac } from 'node:crypto';
import type { Insertable, Kysely } from 'kysely';
import type { DB } from '../db/schema';
import type { CitationPageTable } from '../db/tables/links';
import { notFound } from '../domain/errors';
import { customerLinksServed, type PublicLinksPolicy } from '../domain/public-links';
import { deriveKey } from '../domain/secret-box';
import type { Scope } from '../domain/principal';
import { redactText } from '../privacy/redaction';
import { CitationPageRepo } from './citation-page.repo';

/** Source types whose passages have no url of their own and get a citation page when cited. */
const PAGED_SOURCE_TYPES: ReadonlySet<string> = new Set(['document', 'record']);
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{32}$/;
export const CITATION_PAGE_PATH = '/c';

/** A passage a run's reply cites. */
export interface CitedPassage {
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

  constructor(private readonly deps: PublicLinksPolicy & { db: Kysely<DB>; serverSecret: string }) {
    this.key = deriveKey(deps.serverSecret, 'citation-page-token');
  }

  /**
   * The page urls of a reply's cited passages, in their order: null for a passage whose source has a url
   * of its own (or is not the scope's). One read of the sources and one insert of the pages, whatever
   * the number of passages. In live mode while PUBLIC_BASE_URL is unset or loopback, none (a customer
   * could not open the page; src/domain/public-links.ts) and nothing is stored.
   */
  async linkPassages(input: Scope & { runId: string | null; passages: readonly CitedPassage[] }): Promise<(string | null)[]> {
    if (!customerLinksServed(this.deps, input.livemode)) return input.passages.map(() => null);
    const sourceIds = [...new Set(input.passages.map((p) => p.sourceId))];
    const sources = await this.repo.listSourcesOfScope(this.deps.db, input, sourceIds);
    const paged = new Set(sources.filter((s) => PAGED_SOURCE_TYPES.has(s.type)).map((s) => s.id));
    const baseUrl = this.deps.publicBaseUrl.replace(/\/+$/, '');
    const pages = new Map<string, Insertable<CitationPageTable>>();
    const urls = input.passages.map((passage) => {
      if (!paged.has(passage.sourceId)) return null;
      const token = createHmac('sha256', this.key)
        .update([input.accountId, input.runId ?? '', passage.sourceId, passage.content].join('\u0000'))
        .digest()
        .subarray(0, 24)
        .toString('base64url');
      // Two passages with one token (same run, source and content): the first one's page, as before.
      if (!pages.has(token)) pages.set(token, {
        token_hash: hashToken(token),
        account_id: input.accountId,
        livemode: input.livemode,
        source_id: passage.sourceId,
        run_id: input.runId,
        title: redactText(passage.title).text,
        section: passage.section === null ? null : redactText(passage.section).text,
        content: redactText(passage.content).text,
      });
      return `${baseUrl}${CITATION_PAGE_PATH}/${token}`;
    });
    await this.repo.insertPages(this.deps.db, [...pages.values()]);
    return urls;
  }

  /** The page of a token; 404 resource_missing for a token never issued or whose source was deleted. */
  async readPage(input: { token: string }): Promise<CitationPage> {
    const row = TOKEN_PATTERN.test(input.token) ? await this.repo.getPage(this.deps.db, hashToken(input.token)) : undefined;
    if (!row) throw notFound('citation', input.token, 'token');
    return { title: row.title, section: row.section, content: row.content };
  }
}

const hashToken = (token: string) => createHash('sha256').update(token).digest();
