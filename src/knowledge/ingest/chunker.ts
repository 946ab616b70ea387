import type { ParsedDocument } from './document';

export interface ChunkOptions {
  /** Upper bound on a passage's content length, in characters. */
  maxChars: number;
  /** Characters of the previous passage repeated at the start of the next one in the same section. */
  overlapChars: number;
}

export interface Chunk {
  title: string;
  /** The section heading path (`Billing › Refunds`), when the passage sits under headings. */
  heading: string | null;
  url: string | null;
  content: string;
  metadata: Record<string, string>;
}

/** Longest document title and section heading a passage carries (each passage repeats them). */
export const MAX_TITLE_CHARS = 200;
export const MAX_HEADING_CHARS = 200;
/** Longest heading path (`A › B › C`) a passage carries. */
export const MAX_HEADING_PATH_CHARS = 500;

/** `text` cut to at most `max` characters, with an ellipsis when cut (never splitting a surrogate pair). */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end).trimEnd()}…`;
}

/** Splits text into sentences (keeps the terminator), falling back to words for very long sentences. */
function splitLong(text: string, max: number): string[] {
  const sentences = text.match(/[^.!?;]+(?:[.!?;]+|$)\s*/g) ?? [text];
  const out: string[] = [];
  for (const s of sentences) {
    if (s.length <= max) {
      out.push(s);
      continue;
    }
    let cur = '';
    for (const w of s.split(/(\s+)/)) {
      if (cur.length + w.length > max && cur.trim()) {
        out.push(cur);
        cur = '';
      }
      cur += w.length > max ? w.slice(0, max) : w;
    }
    if (cur.trim()) out.push(cur);
  }
  return out;
}

/** The tail of a passage (at most `n` characters), starting at a sentence or word boundary. */
function tail(text: string, n: number): string {
  if (n <= 0 || text.length <= n) return n <= 0 ? '' : text;
  const cut = text.slice(text.length - n);
  const sentence = cut.search(/[.!?]\s+\S/);
  if (sentence >= 0 && sentence < cut.length - 20) return cut.slice(sentence + 1).trim();
  const space = cut.indexOf(' ');
  return (space >= 0 ? cut.slice(space + 1) : cut).trim();
}

/**
 * Structure-aware chunking: a heading closes the running passage and starts a section; blocks of a
 * section (paragraphs, list items, cells) are packed into passages of at most `maxChars`, never splitting a
 * block unless it alone is too long (then by sentences). Consecutive passages of one section overlap by
 * about `overlapChars`. Each passage keeps the document title, its heading path and a url with the
 * section's anchor.
 */
export function chunkDocument(doc: ParsedDocument, opts: ChunkOptions): Chunk[] {
  const chunks: Chunk[] = [];
  const path: { level: number; text: string }[] = [];
  let anchor: string | undefined;
  let parts: string[] = [];
  let size = 0;
  let carried = false;
  const metadata = doc.metadata ?? {};
  const title = capText(doc.title, MAX_TITLE_CHARS);

  const urlFor = (a?: string) => (doc.url ? (a ? `${doc.url.split('#')[0]}#${a}` : doc.url) : null);
  const emit = (continueSection: boolean) => {
    const content = parts.join('\n').trim();
    if (content && parts.length > (carried ? 1 : 0)) {
      chunks.push({
        title,
        heading: path.length ? capText(path.map((p) => p.text).join(' › '), MAX_HEADING_PATH_CHARS) : null,
        url: urlFor(anchor),
        content,
        metadata,
      });
    }
    const overlap = continueSection && content ? tail(content, opts.overlapChars) : '';
    parts = overlap ? [overlap] : [];
    size = overlap.length;
    carried = Boolean(overlap);
  };

  for (const block of doc.blocks) {
    if (block.kind === 'heading') {
      emit(false);
      while (path.length && path[path.length - 1]!.level >= block.level) path.pop();
      path.push({ level: block.level, text: capText(block.text, MAX_HEADING_CHARS) });
      anchor = block.anchor;
      continue;
    }
    if (block.anchor && block.anchor !== anchor) {
      emit(false);
      anchor = block.anchor;
    }
    const pieces = block.text.length > opts.maxChars ? splitLong(block.text, opts.maxChars) : [block.text];
    for (const piece of pieces) {
      const text = piece.trim();
      if (!text) continue;
      const hasOwn = parts.length > (carried ? 1 : 0);
      if (size + text.length + 1 > opts.maxChars && hasOwn) emit(true);
      if (size + text.length + 1 > opts.maxChars) {
        parts = [];
        size = 0;
        carried = false;
      }
      parts.push(text);
      size += text.length + 1;
    }
  }
  emit(false);
  return chunks;
}
