import * as cheerio from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { normalizeSpace, type Block, type ParsedDocument } from './document';

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'canvas', 'iframe', 'form', 'button', 'select', 'head', 'nav', 'footer', 'aside']);
const BLOCK = new Set([
  'p', 'div', 'section', 'article', 'main', 'header', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'td', 'th',
  'pre', 'blockquote', 'br', 'hr', 'dl', 'dt', 'dd', 'figure', 'figcaption', 'address', 'details', 'summary', 'body',
]);
const HEADING = /^h([1-6])$/;

export interface ExtractedPage extends ParsedDocument {
  /** Absolute http(s) links found anywhere on the page (navigation included), fragment removed. */
  links: string[];
}

/**
 * Readable text and headings of an HTML page. Navigation, footers, asides, scripts and forms are dropped;
 * when the page has a <main> or <article>, only that is read. Headings keep their `id` as anchor.
 */
export function extractHtml(html: string, pageUrl?: string): ExtractedPage {
  const $ = cheerio.load(html);
  const links: string[] = [];
  if (pageUrl) {
    $('a[href]').each((_, a) => {
      const href = $(a).attr('href');
      if (!href || /^(mailto|javascript|tel):/i.test(href)) return;
      try {
        const u = new URL(href, pageUrl);
        if (u.protocol !== 'http:' && u.protocol !== 'https:') return;
        u.hash = '';
        links.push(u.toString());
      } catch {
        // not a URL: ignore
      }
    });
  }
  const title =
    normalizeSpace($('meta[property="og:title"]').attr('content') ?? '') ||
    normalizeSpace($('title').first().text()) ||
    normalizeSpace($('h1').first().text());

  const main = ['main', 'article', 'body'].map((sel) => $(sel).toArray()[0]).find((n) => n !== undefined);
  const rootNodes: AnyNode[] = main ? [main] : $.root().toArray();
  const blocks: Block[] = [];
  let buffer = '';
  const flush = () => {
    const text = normalizeSpace(buffer);
    if (text) blocks.push({ kind: 'text', text });
    buffer = '';
  };
  const walk = (node: AnyNode) => {
    if (node.type === 'text') {
      buffer += (node as unknown as { data: string }).data;
      return;
    }
    if (node.type !== 'tag' && node.type !== 'root') return;
    const el = node as Element;
    const tag = el.name?.toLowerCase() ?? '';
    if (SKIP.has(tag)) return;
    if (el.attribs?.hidden !== undefined || el.attribs?.['aria-hidden'] === 'true') return;
    const h = HEADING.exec(tag);
    if (h) {
      flush();
      const text = normalizeSpace($(el).text());
      const anchor = el.attribs?.id || $(el).find('[id]').first().attr('id') || $(el).find('a[name]').first().attr('name');
      if (text) blocks.push({ kind: 'heading', level: Number(h[1]), text, ...(anchor ? { anchor } : {}) });
      return;
    }
    const isBlock = BLOCK.has(tag);
    if (isBlock) flush();
    for (const child of el.children ?? []) walk(child);
    if (isBlock) flush();
    else if (tag === 'td' || tag === 'th') buffer += ' ';
  };
  for (const n of rootNodes) walk(n);
  flush();
  return { title: title || pageUrl || 'Untitled', url: pageUrl, blocks, links: [...new Set(links)] };
}
