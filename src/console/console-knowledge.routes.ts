import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { AppError } from '../domain/errors';
import { idOf, page, principalOf, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import type { KnowledgeBasesService } from '../knowledge/knowledge-bases.service';
import type { KnowledgeFilesService } from '../knowledge/knowledge-files.service';
import type { KnowledgeSourcesService } from '../knowledge/knowledge-sources.service';
import type { KnowledgeRecordsService } from '../knowledge/knowledge-records.service';
import { knowledgeBasePage, knowledgeBasesPage, knowledgeRecordPage, knowledgeSourcePage, sourceRow, type RecordFormValues } from './views/knowledge.view';
import type { KnowledgeSourceObject } from '../knowledge/knowledge-source.schemas';
import type { Scope } from '../domain/principal';
import { scopeOf } from '../domain/principal';

const BaseSchema = z.object({ name: z.string().trim().min(1).max(200), description: z.string().trim().max(2000).optional() });
const SourceFormSchema = z.object({
  type: z.enum(['url', 'record', 'api']),
  url: z.string().trim().optional(),
  records: z.string().optional(),
  refresh: z.enum(['daily', 'weekly', 'manual']).default('weekly'),
  metadata: z.string().optional(),
});
const QuerySchema = z.object({ q: z.string().trim().max(1000).optional(), top_k: z.coerce.number().int().min(1).max(50).optional().catch(undefined) });

function parseMetadata(text: string | undefined): Record<string, string> | undefined {
  if (!text || !text.trim()) return undefined;
  // key=value, one per line or comma-separated
  const out: Record<string, string> = {};
  for (const part of text.split(/[\n,]/)) {
    const [k, ...v] = part.split('=');
    if (!k?.trim()) continue;
    if (v.length === 0) throw new AppError('parameter_invalid', `Metadata "${part.trim()}" should be key=value`, { param: 'metadata' });
    out[k.trim()] = v.join('=').trim();
  }
  return out;
}

/** The upload's X-Filename header, percent-encoded by the console's script; a malformed encoding is 400, not 500. */
function decodeFilenameHeader(header: string | undefined): string {
  if (header === undefined) return 'document';
  try {
    return decodeURIComponent(header);
  } catch {
    throw new AppError('parameter_invalid', 'X-Filename is not a valid percent-encoded file name', { param: 'filename' });
  }
}

/** Records as pasted: a JSON array of {title, content, url?}, or one "title | content" per line. */
function parseRecords(text: string | undefined) {
  const t = (text ?? '').trim();
  if (!t) throw new AppError('parameter_invalid', 'Paste at least one record', { param: 'records' });
  if (t.startsWith('[')) {
    try {
      return JSON.parse(t) as { title: string; content: string }[];
    } catch (err) {
      throw new AppError('parameter_invalid', `The records are not valid JSON: ${(err as Error).message}`, { param: 'records' });
    }
  }
  return t.split('\n').filter((l) => l.trim()).map((line, i) => {
    const [title, ...rest] = line.split('|');
    if (!rest.length) throw new AppError('parameter_invalid', `Line ${i + 1} should be "title | content"`, { param: 'records' });
    return { title: title!.trim(), content: rest.join('|').trim() };
  });
}

/** The services these console pages use. */
interface ConsoleKnowledgeServices {
  knowledgeBases: KnowledgeBasesService;
  knowledgeFiles: KnowledgeFilesService;
  knowledgeSources: KnowledgeSourcesService;
  knowledgeRecords: KnowledgeRecordsService;
}

const RecordFormSchema = z.object({
  title: z.string().optional(),
  content: z.string().optional(),
  url: z.string().optional(),
  metadata: z.string().optional(),
});

/** A record as typed in the console form, checked by the API's own rules (the service's and the routes' limits). */
function recordFromForm(form: RecordFormValues) {
  const title = (form.title ?? '').trim();
  const content = (form.content ?? '').replace(/\r\n/g, '\n').trim();
  const url = (form.url ?? '').trim();
  if (!title || title.length > 1000) throw new AppError('parameter_invalid', 'Give the record a title (1 to 1,000 characters).', { param: 'title' });
  if (!content || content.length > 200_000) throw new AppError('parameter_invalid', 'Write the record\'s content (1 to 200,000 characters).', { param: 'content' });
  if (url) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(url).protocol);
    } catch { /* not a URL */ }
    if (!ok || url.length > 2048) throw new AppError('parameter_invalid', 'The URL should be an http(s) address, such as https://help.example.com/returns.', { param: 'url' });
  }
  const metadata = parseMetadata(form.metadata) ?? {};
  // The API's metadata limits (knowledge.routes MetadataSchema): 50 keys of up to 40 characters, values up to 500.
  const entries = Object.entries(metadata);
  if (entries.length > 50 || entries.some(([k, v]) => k.length > 40 || v.length > 500)) {
    throw new AppError('parameter_invalid', 'Metadata takes at most 50 keys of up to 40 characters, each value up to 500.', { param: 'metadata' });
  }
  return { title, content, url: url || undefined, metadata };
}

/** Knowledge: bases, their sources (url, upload, records, api) with live status, and a query box. */
export function registerConsoleKnowledgeRoutes(router: Router, { services, config }: ConsoleDeps<ConsoleKnowledgeServices>) {
  async function basesPage(res: Response, extra: { error?: string; status?: number } = {}) {
    const { session } = sessionOf(res);
    const bases = await services.knowledgeBases.listBases({ ...scopeOf(session), page: { limit: 100 } });
    sendPage(res, {
      title: 'Knowledge',
      active: 'knowledge',
      error: extra.error,
      status: extra.status,
      body: knowledgeBasesPage({ bases: bases.data, csrf: session.csrfToken }),
    });
  }

  router.get('/knowledge', page(async (_req, res) => basesPage(res)));

  router.post('/knowledge', page(async (req, res) => {
    const { session } = sessionOf(res);
    const parsed = BaseSchema.safeParse(req.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return basesPage(res, { error: issue?.path[0] === 'name' ? 'Give the knowledge base a name (1 to 200 characters).' : (issue?.message ?? 'Check the form'), status: 422 });
    }
    const body = parsed.data;
    const base = await services.knowledgeBases.createBase({ ...scopeOf(session), name: body.name, description: body.description || undefined });
    res.redirect(303, `/console/knowledge/${base.id}`);
  }));

  async function basePage(req: Request, res: Response, extra: { error?: string; status?: number } = {}) {
    const { session } = sessionOf(res);
    const accountId = session.accountId;
    const livemode = session.mode === 'live';
    const base = await services.knowledgeBases.getBase({ accountId, livemode, knowledgeBaseId: idOf(req) });
    const sources = await services.knowledgeSources.listSources({ accountId, livemode, knowledgeBaseId: base.id, page: { limit: 100 } });
    const filenames = await filenamesOf({ accountId, livemode }, sources.data);
    const q = QuerySchema.parse(req.query);
    let results: Awaited<ReturnType<typeof services.knowledgeBases.queryBase>> | undefined;
    let queryError: string | undefined;
    if (q.q) {
      try {
        results = await services.knowledgeBases.queryBase({ accountId, livemode, knowledgeBaseId: base.id, query: q.q, top_k: q.top_k ?? 5 });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        queryError = err.message;
      }
    }
    const csrf = session.csrfToken;
    sendPage(res, {
      title: base.name,
      active: 'knowledge',
      notice: req.query.added ? 'Source added: it is indexing now (this page updates by itself).' : req.query.reindexed ? 'Re-indexing.' : undefined,
      error: extra.error,
      status: extra.status,
      body: knowledgeBasePage({ base, sources: sources.data, filenames, csrf, q, queryError, results, maxFileBytes: config.knowledge.maxFileBytes }),
    });
  }

  /** The file names of the document sources listed (a source shows its file's name, not its id). */
  async function filenamesOf(scope: Scope, sources: KnowledgeSourceObject[]) {
    const names = new Map<string, string>();
    for (const fileId of new Set(sources.flatMap((s) => (s.file_id ? [s.file_id] : [])))) {
      try {
        names.set(fileId, (await services.knowledgeFiles.getFile({ ...scope, fileId })).filename);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
      }
    }
    return names;
  }

  router.get('/knowledge/:id', page(async (req, res) => basePage(req, res)));

  async function sourcePage(req: Request, res: Response, extra: { error?: string; status?: number; notice?: string; draft?: RecordFormValues } = {}) {
    const { session } = sessionOf(res);
    const scope = scopeOf(session);
    const base = await services.knowledgeBases.getBase({ ...scope, knowledgeBaseId: idOf(req) });
    const source = await services.knowledgeSources.getSource({ ...scope, knowledgeBaseId: base.id, sourceId: idOf(req, 'src') });
    const records = source.type === 'record'
      ? await services.knowledgeRecords.listRecords({ ...scope, knowledgeBaseId: base.id, sourceId: source.id, page: { limit: 100 } })
      : undefined;
    const filename = (await filenamesOf(scope, [source])).get(source.file_id ?? '');
    sendPage(res, {
      title: source.type === 'record' ? `Records · ${base.name}` : base.name,
      active: 'knowledge',
      error: extra.error,
      status: extra.status,
      notice: extra.notice ?? (req.query.saved ? 'Record saved: it is searchable now.' : req.query.deleted ? 'Record deleted.' : undefined),
      body: knowledgeSourcePage({ base, source, records: records?.data, hasMore: records?.has_more, filename, csrf: session.csrfToken, draft: extra.draft }),
    });
  }

  async function recordPage(req: Request, res: Response, extra: { error?: string; status?: number; values?: RecordFormValues } = {}) {
    const { session } = sessionOf(res);
    const scope = scopeOf(session);
    const base = await services.knowledgeBases.getBase({ ...scope, knowledgeBaseId: idOf(req) });
    const source = await services.knowledgeSources.getSource({ ...scope, knowledgeBaseId: base.id, sourceId: idOf(req, 'src') });
    const record = await services.knowledgeRecords.getRecord({ ...scope, knowledgeBaseId: base.id, sourceId: source.id, recordId: idOf(req, 'rec') });
    sendPage(res, {
      title: `${record.title} · Records`,
      active: 'knowledge',
      error: extra.error,
      status: extra.status,
      body: knowledgeRecordPage({ base, source, record, csrf: session.csrfToken, values: extra.values }),
    });
  }

  const sourcePath = (req: Request) => `/console/knowledge/${idOf(req)}/sources/${idOf(req, 'src')}`;

  router.get('/knowledge/:id/sources/:src', page(async (req, res) => sourcePage(req, res)));

  router.post('/knowledge/:id/sources/:src/records', page(async (req, res) => {
    const { session } = sessionOf(res);
    const form = RecordFormSchema.parse(req.body);
    try {
      await services.knowledgeRecords.addRecord({ ...scopeOf(session), knowledgeBaseId: idOf(req), sourceId: idOf(req, 'src'), record: recordFromForm(form) });
    } catch (err) {
      if (!(err instanceof AppError) || err.status === 404) throw err;
      return sourcePage(req, res, { error: err.message, status: 422, draft: form });
    }
    res.redirect(303, `${sourcePath(req)}?saved=1`);
  }));

  router.get('/knowledge/:id/sources/:src/records/:rec', page(async (req, res) => recordPage(req, res)));

  router.post('/knowledge/:id/sources/:src/records/:rec', page(async (req, res) => {
    const { session } = sessionOf(res);
    const form = RecordFormSchema.parse(req.body);
    try {
      const record = recordFromForm(form);
      await services.knowledgeRecords.updateRecord({
        ...scopeOf(session), knowledgeBaseId: idOf(req), sourceId: idOf(req, 'src'), recordId: idOf(req, 'rec'),
        patch: { ...record, url: record.url ?? null },
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.status === 404) throw err;
      return recordPage(req, res, { error: err.message, status: 422, values: form });
    }
    res.redirect(303, `${sourcePath(req)}?saved=1`);
  }));

  router.post('/knowledge/:id/sources/:src/records/:rec/delete', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.knowledgeRecords.deleteRecord({ ...scopeOf(session), knowledgeBaseId: idOf(req), sourceId: idOf(req, 'src'), recordId: idOf(req, 'rec') });
    res.redirect(303, `${sourcePath(req)}?deleted=1`);
  }));

  router.get('/knowledge/:id/sources.json', page(async (req, res) => {
    const { session } = sessionOf(res);
    const sources = await services.knowledgeSources.listSources({ ...scopeOf(session), knowledgeBaseId: idOf(req), page: { limit: 100 } });
    const filenames = await filenamesOf(scopeOf(session), sources.data);
    res.json({ data: sources.data.map((s) => ({ id: s.id, status: s.status, html: sourceRow(s, session.csrfToken, s.file_id ? filenames.get(s.file_id) : undefined).value })) });
  }));

  router.post('/knowledge/:id/sources', page(async (req, res) => {
    const body = SourceFormSchema.parse(req.body);
    try {
      await services.knowledgeSources.addSource({
        principal: principalOf(res),
        knowledgeBaseId: idOf(req),
        type: body.type,
        ...(body.type === 'record' ? { records: parseRecords(body.records) } : { url: body.url }),
        refresh: body.refresh,
        metadata: parseMetadata(body.metadata),
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return basePage(req, res, { error: err.message, status: 422 });
    }
    return res.redirect(303, `/console/knowledge/${idOf(req)}?added=1`);
  }));

  // A document: the browser sends the file as the body (X-Filename, Content-Type); it becomes a file, then a source.
  router.post('/knowledge/:id/documents', express.raw({ type: () => true, limit: config.knowledge.maxFileBytes }), page(async (req, res) => {
    const { session } = sessionOf(res);
    // A form or JSON body was read by the console's body parsers before this route: not a file (400).
    if (!Buffer.isBuffer(req.body)) throw new AppError('parameter_invalid', 'Send the document itself as the request body (with X-Filename), not a form or JSON', { param: 'file' });
    const filename = decodeFilenameHeader(req.header('x-filename'));
    const file = await services.knowledgeFiles.uploadFile({ ...scopeOf(session), filename, contentType: req.header('content-type') ?? 'application/octet-stream', data: req.body });
    const source = await services.knowledgeSources.addSource({ principal: principalOf(res), knowledgeBaseId: idOf(req), type: 'document', file_id: file.id, metadata: parseMetadata(req.header('x-metadata') ?? undefined) });
    res.json({ source_id: source.id });
  }));

  router.post('/knowledge/:id/sources/:src/reindex', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.knowledgeSources.reindexSource({ ...scopeOf(session), knowledgeBaseId: idOf(req), sourceId: idOf(req, 'src') });
    res.redirect(303, `/console/knowledge/${idOf(req)}?reindexed=1`);
  }));

  router.post('/knowledge/:id/sources/:src/delete', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.knowledgeSources.deleteSource({ ...scopeOf(session), knowledgeBaseId: idOf(req), sourceId: idOf(req, 'src') });
    res.redirect(303, `/console/knowledge/${idOf(req)}`);
  }));

  router.post('/knowledge/:id/delete', page(async (req, res) => {
    const { session } = sessionOf(res);
    await services.knowledgeBases.deleteBase({ ...scopeOf(session), knowledgeBaseId: idOf(req) });
    res.redirect(303, '/console/knowledge');
  }));
}
