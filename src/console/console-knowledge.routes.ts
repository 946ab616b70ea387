import express, { type Router } from 'express';
import { z } from 'zod';
import type { KnowledgeSourceObject } from '../knowledge/knowledge-source.schemas';
import { AppError } from '../domain/errors';
import { idOf, page, sendPage, sessionOf, type ConsoleDeps } from './console.routes';
import { html } from './html';
import { csrfField, statusBadge, timeAgo } from './views/layout';
import { SCORE_LEGEND, scorePercent } from './views/run.view';
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

const sourceLabel = (s: KnowledgeSourceObject) => s.url ?? (s.type === 'record' ? `${s.record_count ?? 0} records` : s.file_id ?? s.type);

function sourceRow(s: KnowledgeSourceObject, csrf: string) {
  return html`<tr data-source-id="${s.id}" data-status="${s.status}"><td><span class="tag">${s.type}</span> ${sourceLabel(s)}<div class="muted mono">${s.id}</div>
    ${Object.entries(s.metadata).map(([k, v]) => html`<span class="tag">${k}=${v}</span> `)}</td>
    <td data-source-status>${statusBadge(s.status)}${s.status === 'indexing' ? html` <span class="spinner" aria-hidden="true"></span>` : ''}${s.error ? html`<div class="field-error">${s.error.code}: ${s.error.message}</div>` : ''}</td>
    <td>${s.passage_count} passages${s.embedded_passages < s.passage_count && s.status === 'ready' ? html`<div class="muted">${s.embedded_passages} with vectors</div>` : ''}</td>
    <td>${s.refresh}<div class="muted">synced ${timeAgo(s.last_synced_at)}</div></td>
    <td><form method="post" action="/console/knowledge/${s.knowledge_base_id}/sources/${s.id}/reindex" class="inline">${csrfField(csrf)}<button class="link">Reindex</button></form>
    <form method="post" action="/console/knowledge/${s.knowledge_base_id}/sources/${s.id}/delete" class="inline" data-confirm="Delete this source and its passages?">${csrfField(csrf)}<button class="link danger">Delete</button></form></td></tr>`;
}

/** Knowledge: bases, their sources (url, upload, records, api) with live status, and a query box. */
export function registerConsoleKnowledgeRoutes(router: Router, { services, config }: ConsoleDeps) {
  const principalOf = (res: Parameters<typeof sessionOf>[0]) => {
    const { session } = sessionOf(res);
    return { accountId: session.accountId, keyId: 'console', mode: session.mode };
  };

  router.get('/knowledge', page(async (_req, res) => {
    const { session } = sessionOf(res);
    const bases = await services.knowledgeBases.listBases({ ...scopeOf(session), page: { limit: 100 } });
    sendPage(res, {
      title: 'Knowledge',
      active: 'knowledge',
      body: html`<div class="page-head"><h1>Knowledge bases</h1></div>
      ${bases.data.length ? html`<table class="list"><thead><tr><th>Name</th><th>Description</th><th>Created</th></tr></thead><tbody>
      ${bases.data.map((b) => html`<tr><td><a href="/console/knowledge/${b.id}">${b.name}</a><div class="muted mono">${b.id}</div></td><td>${b.description ?? ''}</td><td>${timeAgo(b.created_at)}</td></tr>`)}</tbody></table>`
        : html`<p class="empty">No knowledge bases yet. A knowledge base holds the pages, documents and records your agents answer from.</p>`}
      <form method="post" action="/console/knowledge" class="card">${csrfField(session.csrfToken)}<h2>New knowledge base</h2>
        <label>Name <input name="name" required></label><label>Description <input name="description"></label><button class="button primary">Create</button></form>`,
    });
  }));

  router.post('/knowledge', page(async (req, res) => {
    const { session } = sessionOf(res);
    const body = BaseSchema.parse(req.body);
    const base = await services.knowledgeBases.createBase({ ...scopeOf(session), name: body.name, description: body.description || undefined });
    res.redirect(303, `/console/knowledge/${base.id}`);
  }));

  router.get('/knowledge/:id', page(async (req, res) => {
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
      error: typeof req.query.error === 'string' ? req.query.error : undefined,
      body: html`<div class="page-head"><div><a href="/console/knowledge" class="muted">Knowledge</a> / <h1>${base.name}</h1><div class="muted mono">${base.id}</div></div>
        <form method="post" action="/console/knowledge/${base.id}/delete" class="inline" data-confirm="Delete this knowledge base and all its sources?">${csrfField(csrf)}<button class="button danger">Delete base</button></form></div>
      <h2>Sources</h2>
      ${sources.data.length ? html`<table class="list sources" data-live-sources="${base.id}"><thead><tr><th>Source</th><th>Status</th><th>Passages</th><th>Refresh</th><th></th></tr></thead><tbody>${sources.data.map((s) => sourceRow(s, csrf))}</tbody></table>`
        : html`<p class="empty">No sources yet: add a web page, a document, records or a live endpoint below.</p>`}
      <div class="grid2">
      <form method="post" action="/console/knowledge/${base.id}/sources" class="card">${csrfField(csrf)}<h3>Add a source</h3>
        <label>Type <select name="type" data-source-type><option value="url">Web page (crawled within its path)</option><option value="record">Records (pasted)</option><option value="api">Live API endpoint (queried at answer time)</option></select></label>
        <label data-for="url api">URL <input name="url" placeholder="https://help.example.com/faq"></label>
        <label data-for="record" hidden>Records <span class="hint">one "title | content" per line, or a JSON array of {title, content, url}</span><textarea name="records" rows="4"></textarea></label>
        <label>Refresh <select name="refresh"><option value="weekly">weekly</option><option value="daily">daily</option><option value="manual">manual</option></select></label>
        <label>Metadata <span class="hint">key=value, comma-separated (used by agents' filters)</span><input name="metadata" placeholder="locale=en"></label>
        <button class="button primary">Add source</button></form>
      <form class="card" data-upload="${base.id}"><h3>Upload a document</h3><p class="hint">PDF, DOCX, HTML, Markdown or text, up to ${Math.round(config.knowledge.maxFileBytes / 1e6)} MB</p>
        <input type="file" name="file" required><label>Metadata <input name="metadata" placeholder="locale=en"></label><button class="button primary">Upload and index</button><p class="field-error" data-upload-error></p></form>
      </div>
      <h2>Try a query</h2>
      <form method="get" class="row query"><input name="q" value="${q.q ?? ''}" placeholder="A question a customer would ask" class="grow"><button class="button">Search</button></form>
      ${queryError ? html`<p class="error-banner">${queryError}</p>` : ''}
      ${results ? results.results.length ? html`<ol class="passages">${results.results.map((r) => html`<li><span class="score">${scorePercent(r.score)}</span> <b>${r.title}</b> ${r.url ? html`<a class="muted" href="${r.url}" target="_blank" rel="noopener noreferrer">${r.url}</a>` : ''}<div class="snippet">${r.snippet}</div></li>`)}</ol><p class="hint legend">${SCORE_LEGEND}</p>` : html`<p class="muted">Nothing relevant found.</p>` : ''}`,
    });
  }));

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
      return res.redirect(303, `/console/knowledge/${idOf(req)}?error=${encodeURIComponent(err.message)}`);
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
