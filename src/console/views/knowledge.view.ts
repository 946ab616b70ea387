import type { KnowledgeBaseObject, KnowledgeQueryResultObject } from '../../knowledge/knowledge-base.schemas';
import type { KnowledgeSourceObject } from '../../knowledge/knowledge-source.schemas';
import type { KnowledgeRecordObject } from '../../knowledge/knowledge-record.schemas';
import { externalLink, html, type Html } from '../../platform/html';
import { csrfField, statusBadge, timeAgo } from './layout';
import { SCORE_LEGEND, scorePercent } from './run.view';

/** What a source is, in a few words: its url, its file's name, or how many records it holds. */
const sourceLabel = (s: KnowledgeSourceObject, filename?: string) =>
  s.url ?? (s.type === 'record' ? `${s.record_count ?? 0} ${s.record_count === 1 ? 'record' : 'records'}` : (filename ?? s.file_id ?? s.type));

/** A source's row: type, status (live-updated from sources.json), passages, refresh, reindex and delete. */
export function sourceRow(s: KnowledgeSourceObject, csrf: string, filename?: string) {
  return html`<tr data-source-id="${s.id}" data-status="${s.status}"><td><span class="tag">${s.type}</span> <a href="/console/knowledge/${s.knowledge_base_id}/sources/${s.id}">${sourceLabel(s, filename)}</a><div class="muted mono">${s.id}</div>
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
export function knowledgeBasePage({ base, sources, filenames, csrf, q, queryError, results, maxFileBytes }: {
  base: KnowledgeBaseObject;
  sources: KnowledgeSourceObject[];
  /** File names of document sources, by file id. */
  filenames: Map<string, string>;
  csrf: string;
  q: { q?: string };
  queryError?: string;
  results?: KnowledgeQueryResultObject;
  maxFileBytes: number;
}): Html {
  return html`<div class="page-head"><div><a href="/console/knowledge" class="muted">Knowledge</a> / <h1>${base.name}</h1><div class="muted mono">${base.id}</div></div>
        <form method="post" action="/console/knowledge/${base.id}/delete" class="inline" data-confirm="Delete this knowledge base and all its sources?">${csrfField(csrf)}<button class="button danger">Delete base</button></form></div>
      <h2>Sources</h2>
      ${sources.length ? html`<table class="list sources" data-live-sources="${base.id}"><thead><tr><th>Source</th><th>Status</th><th>Passages</th><th>Refresh</th><th></th></tr></thead><tbody>${sources.map((s) => sourceRow(s, csrf, s.file_id ? filenames.get(s.file_id) : undefined))}</tbody></table>`
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

/** The first line of a record's content, cut to a table cell's length. */
const firstLine = (text: string) => {
  const line = text.split('\n').find((l) => l.trim())?.trim() ?? '';
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
};

const metadataText = (m: Record<string, string>) => Object.entries(m).map(([k, v]) => `${k}=${v}`).join(', ');

/** The fields of a record, empty (add) or filled (edit); `values` keeps what was typed when a save failed. */
function recordFields(values: { title?: string; content?: string; url?: string | null; metadata?: string }) {
  return html`<label>Title <input name="title" required maxlength="1000" value="${values.title ?? ''}"></label>
    <label>Content <textarea name="content" rows="8" required>${values.content ?? ''}</textarea></label>
    <label>URL <span class="hint">optional: where the answer links to</span><input name="url" value="${values.url ?? ''}" placeholder="https://help.example.com/returns"></label>
    <label>Metadata <span class="hint">key=value, comma-separated (used by agents' filters)</span><input name="metadata" value="${values.metadata ?? ''}" placeholder="topic=billing"></label>`;
}

export interface RecordFormValues { title?: string; content?: string; url?: string; metadata?: string }

/**
 * One source: what it is (a record source lists its records with an add form; a document source names its
 * file), its status and its passages.
 */
export function knowledgeSourcePage({ base, source, records, hasMore, filename, csrf, draft }: {
  base: KnowledgeBaseObject;
  source: KnowledgeSourceObject;
  records?: KnowledgeRecordObject[];
  hasMore?: boolean;
  filename?: string;
  csrf: string;
  /** What the add form held when its save failed. */
  draft?: RecordFormValues;
}): Html {
  const path = `/console/knowledge/${base.id}/sources/${source.id}`;
  return html`<div class="page-head"><div><a href="/console/knowledge" class="muted">Knowledge</a> / <a href="/console/knowledge/${base.id}" class="muted">${base.name}</a> / <h1>${source.type === 'record' ? 'Records' : (filename ?? source.url ?? source.type)}</h1><div class="muted mono">${source.id}</div></div></div>
      <table class="list"><thead><tr><th>Source</th><th>Status</th><th>Passages</th><th>Refresh</th><th></th></tr></thead><tbody>${sourceRow(source, csrf, filename)}</tbody></table>
      ${source.type === 'document' ? html`<p>File: <b data-filename>${filename ?? source.file_id}</b> <span class="muted mono">${source.file_id}</span></p>` : ''}
      ${records ? html`<h2>${records.length}${hasMore ? '+' : ''} ${records.length === 1 ? 'record' : 'records'}</h2>
      ${records.length ? html`<table class="list records"><thead><tr><th>Title</th><th>First line</th><th>URL</th><th></th></tr></thead><tbody>
        ${records.map((r) => html`<tr data-record-id="${r.id}"><td><a href="${path}/records/${r.id}">${r.title}</a><div class="muted mono">${r.id}</div></td><td>${firstLine(r.content)}</td><td>${r.url ? externalLink(r.url) : ''}</td>
          <td><a href="${path}/records/${r.id}" class="link">Edit</a> <form method="post" action="${path}/records/${r.id}/delete" class="inline" data-confirm="Delete this record? Its passages leave the index at once.">${csrfField(csrf)}<button class="link danger">Delete</button></form></td></tr>`)}
      </tbody></table>${hasMore ? html`<p class="muted">Showing the first ${records.length}; the API lists them all (GET …/sources/${source.id}/records).</p>` : ''}`
        : html`<p class="empty">No records: add one below.</p>`}
      <form method="post" action="${path}/records" class="card" id="add-record">${csrfField(csrf)}<h3>Add a record</h3>
        ${recordFields(draft ?? {})}<p class="hint">Only this record is indexed: it is searchable as soon as it is saved.</p><button class="button primary">Add record</button></form>` : ''}`;
}

/** One record's edit form, and its delete button. */
export function knowledgeRecordPage({ base, source, record, csrf, values }: {
  base: KnowledgeBaseObject;
  source: KnowledgeSourceObject;
  record: KnowledgeRecordObject;
  csrf: string;
  /** What the form held when its save failed. */
  values?: RecordFormValues;
}): Html {
  const path = `/console/knowledge/${base.id}/sources/${source.id}`;
  return html`<div class="page-head"><div><a href="/console/knowledge" class="muted">Knowledge</a> / <a href="/console/knowledge/${base.id}" class="muted">${base.name}</a> / <a href="${path}" class="muted">Records</a> / <h1>${record.title}</h1><div class="muted mono">${record.id}</div></div>
      <form method="post" action="${path}/records/${record.id}/delete" class="inline" data-confirm="Delete this record? Its passages leave the index at once.">${csrfField(csrf)}<button class="button danger">Delete record</button></form></div>
      <form method="post" action="${path}/records/${record.id}" class="card">${csrfField(csrf)}<h3>Edit record</h3>
        ${recordFields(values ?? { title: record.title, content: record.content, url: record.url, metadata: metadataText(record.metadata) })}
        <p class="hint">Saving re-indexes this record only; the source's other records are not touched. Updated ${timeAgo(record.updated_at)}.</p>
        <button class="button primary">Save record</button> <a href="${path}" class="button">Cancel</a></form>`;
}
