/**
 * What every parser produces: a titled document made of structural blocks (headings and text blocks such
 * as paragraphs, list items, table cells). The chunker turns blocks into passages.
 */
export interface HeadingBlock {
  kind: 'heading';
  level: number;
  text: string;
  /** Fragment identifier of the heading (`id` attribute, markdown slug, `page=3`). */
  anchor?: string;
}

export interface TextBlock {
  kind: 'text';
  text: string;
  /** Where a block carries its own anchor (a PDF page). */
  anchor?: string;
}

export type Block = HeadingBlock | TextBlock;

export interface ParsedDocument {
  title: string;
  /** Canonical url of the document (crawled page, record url); passages add `#anchor`. */
  url?: string;
  blocks: Block[];
  /** Per-document metadata merged over the source's (records). */
  metadata?: Record<string, string>;
}

export const normalizeSpace = (s: string) => s.replace(/[\u00a0\s]+/g, ' ').trim();

/** GitHub-style heading slug, used as the anchor of markdown headings. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s+/g, '-');
}

/** Splits plain text into paragraph blocks on blank lines. */
export function textToBlocks(text: string, anchor?: string): TextBlock[] {
  return text
    .split(/\n\s*\n/)
    .map((p) => normalizeSpace(p))
    .filter((p) => p.length > 0)
    .map((p) => ({ kind: 'text' as const, text: p, ...(anchor ? { anchor } : {}) }));
}
