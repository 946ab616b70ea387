import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { AppError } from '../domain/errors';
import { idOf, page, principalOf, sendPage, sessionOf, type ConsoleDeps } from './console-page';
import type { KnowledgeBasesService } from '../knowledge/knowledge-bases.service';
import type { KnowledgeFilesService } from '../knowledge/knowledge-files.service';
import type { KnowledgeSourcesService } from '../knowledge/knowledge-sources.service';
import { knowledgeBasePage, knowledgeBasesPage, sourceRow } from './views/knowledge.view';
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
interface ConsoleKnowledgeServices { knowledgeBases: KnowledgeBasesService; knowledgeFiles: KnowledgeFilesService; knowledgeSources: KnowledgeSourcesService }

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
      body: knowledgeBasePage({ base, sources: sources.data, csrf, q, queryError, results, maxFileBytes: config.knowledge.maxFileBytes }),
    });
  }

  router.get('/knowledge/:id', page(async (req, res) => basePage(req, res)));

  router.get('/knowledge/:id/sources.json', page(async (req, res) => {
    const { session } = sessionOf(res);
    const sources = await services.knowledgeSources.listSources({ ...scopeOf(session), knowledgeBaseId: idOf(req), page: { limit: 100 } });
    res.json({ data: sources.data.map((s) => ({ id: s.id, status: s.status, html: sourceRow(s, session.csrfToken).value })) });
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
    const filename = decodeURIComponent(req.header('x-filename') ?? 'document');
    const file = await services.knowledgeFiles.uploadFile({ ...scopeOf(session), filename, contentType: req.header('content-type') ?? 'application/octet-stream', data: req.body as Buffer });
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
