import type { KnowledgeBaseObject, KnowledgeQueryResultObject } from '../../knowledge/knowledge-base.schemas';
import type { KnowledgeSourceObject } from '../../knowledge/knowledge-source.schemas';
import { externalLink, html, type Html } from '../../platform/html';
import { csrfField, statusBadge, timeAgo } from './layout';
import { SCORE_LEGEND, scorePercent } from './run.view';

const sourceLabel = (s: KnowledgeSourceObject) => s.url ?? (s.type === 'record' ? `${s.record_count ?? 0} records` : s.file_id ?? s.type);

/** A source's row: type, status (live-updated from sources.json), passages, refresh, reindex and delete. */
export function sourceRow(s: KnowledgeSourceObject, csrf: string) {
  return html`<tr data-source-id="${s.id}" data-status="${s.status}"><td><span class="tag">${s.type}</span> ${sourceLabel(s)}<div class="muted mono">${s.id}</div>
    ${Object.entries(s.metadata).map(([k, v]) => html`<span class="tag">${k}=${v}</span> `)}</td>
    <td data-source-status>${statusBadge(s.status)}${s.status === 'indexing' ? html` <span class="spinner" aria-hidden="true"></span>` : ''}${s.error ? html`<div class="field-error">${s.error.code}: ${s.error.message}</div>` : ''}</td>
    <td>${s.passage_count} ${s.passage_count === 1 ? 'passage' : 'passages'}${s.embedded_passages < s.passage_count && s.status === 'ready' ? html`<div class="muted" title="Searchable by words now; meaning-based search and other languages follow once every passage has its vector">vectors: ${s.embedded_passages} of ${s.passage_count} (in progress)</div>` : ''}</td>
    <td>${s.refresh}<div class="muted">synced ${timeAgo(s.last_synced_at)}</div></td>
    <td><form method="post" action="/console/knowledge/${s.knowledge_base_id}/sources/${s.id}/reindex" class="inline">${csrfField(csrf)}<button class="link">Reindex</button></form>
    <form method="post" action="/console/knowledge/${s.knowledge_base_id}/sources/${s.id}/delete" class="inline" data-confirm="Delete this source and its passages?">${csrfField(csrf)}<button class="link danger">Delete</button></form></td></tr>`;
}

/** The knowledge bases and the form that creates one. */
export function knowledgeBasesPage({ bases, csrf }: { bases: KnowledgeBaseObject[]; csrf: string }): Html {
  return html`<div class="page-head"><h1>Knowledge bases</h1></div>
      ${bases.length ? html`<table class="list"><thead><tr><th>Name</th><th>Description</th><th>Created</th></tr></thead><tbody>
      ${bases.map((b) => html`<tr><td><a href="/console/knowledge/${b.id}">${b.name}</a><div class="muted mono">${b.id}</div></td><td>${b.description ?? ''}</td><td>${timeAgo(b.created_at)}</td></tr>`)}</tbody></table>`
        : html`<p class="empty">No knowledge bases yet. A knowledge base holds the pages, documents and records your agents answer from.</p>`}
      <form method="post" action="/console/knowledge" class="card">${csrfField(csrf)}<h2>New knowledge base</h2>
        <label>Name <input name="name" required></label><label>Description <input name="description"></label><button class="button primary">Create</button></form>`;
}

/** One knowledge base: its sources, the forms that add a source or upload a document, and the query box. */
export function knowledgeBasePage({ base, sources, csrf, q, queryError, results, maxFileBytes }: {
  base: KnowledgeBaseObject;
  sources: KnowledgeSourceObject[];
  csrf: string;
  q: { q?: string };
  queryError?: string;
  results?: KnowledgeQueryResultObject;
  maxFileBytes: number;
}): Html {
  return html`<div class="page-head"><div><a href="/console/knowledge" class="muted">Knowledge</a> / <h1>${base.name}</h1><div class="muted mono">${base.id}</div></div>
        <form method="post" action="/console/knowledge/${base.id}/delete" class="inline" data-confirm="Delete this knowledge base and all its sources?">${csrfField(csrf)}<button class="button danger">Delete base</button></form></div>
      <h2>Sources</h2>
      ${sources.length ? html`<table class="list sources" data-live-sources="${base.id}"><thead><tr><th>Source</th><th>Status</th><th>Passages</th><th>Refresh</th><th></th></tr></thead><tbody>${sources.map((s) => sourceRow(s, csrf))}</tbody></table>`
        : html`<p class="empty">No sources yet: add a web page, a document, records or a live endpoint below.</p>`}
      <div class="grid2">
      <form method="post" action="/console/knowledge/${base.id}/sources" class="card">${csrfField(csrf)}<h3>Add a source</h3>
        <label>Type <select name="type" data-source-type><option value="url">Web page (crawled within its path)</option><option value="record">Records (pasted)</option><option value="api">Live API endpoint (queried at answer time)</option></select></label>
        <label data-for="url api">URL <input name="url" placeholder="https://help.example.com/faq"></label>
        <label data-for="record" hidden>Records <span class="hint">one "title | content" per line, or a JSON array of {title, content, url}</span><textarea name="records" rows="4"></textarea></label>
        <label>Refresh <select name="refresh"><option value="weekly">weekly</option><option value="daily">daily</option><option value="manual">manual</option></select></label>
        <label>Metadata <span class="hint">key=value, comma-separated (used by agents' filters)</span><input name="metadata" placeholder="locale=en"></label>
        <button class="button primary">Add source</button></form>
      <form class="card" data-upload="${base.id}"><h3>Upload a document</h3><p class="hint">PDF, DOCX, HTML, Markdown or text, up to ${Math.round(maxFileBytes / 1e6)} MB</p>
        <input type="file" name="file" required><label>Metadata <input name="metadata" placeholder="locale=en"></label><button class="button primary">Upload and index</button><p class="field-error" data-upload-error></p></form>
      </div>
      <h2>Try a query</h2>
      <form method="get" class="row query"><input name="q" value="${q.q ?? ''}" placeholder="A question a customer would ask" class="grow"><button class="button">Search</button></form>
      ${queryError ? html`<p class="error-banner">${queryError}</p>` : ''}
      ${results ? results.results.length ? html`<ol class="passages">${results.results.map((r) => html`<li><span class="score">${scorePercent(r.score)}</span> <b>${r.title}</b> ${r.url ? externalLink(r.url) : ''}<div class="snippet">${r.snippet}</div></li>`)}</ol><p class="hint legend">${SCORE_LEGEND}</p>` : html`<p class="muted">Nothing relevant found.</p>` : ''}`;
}
