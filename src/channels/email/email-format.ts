import type { CitedSource } from '../../conversations/reply-channels';
import { quoteText } from './email-threading';

/** Sources linked under a reply, at most. */
const MAX_SOURCE_LINKS = 2;

/**
 * An agent's reply as it reads in an email (and in the transcript): plain text, citation marks `[n]`
 * removed (the sources they point at are linked below instead), light markdown undone, and a
 * "Source:" line with the title and URL of each cited source that has one.
 */
export function shapeEmailReplyText(text: string, sources: CitedSource[]): string {
  const body = text
    .replace(/\s*\[(\d+(?:\s*,\s*\d+)*)\]/g, '')
    .replace(/\*\*([^*\n]+)\*\*/g, '$1')
    .replace(/__([^_\n]+)__/g, '$1')
    .replace(/^#{1,6}\s+/gm, '')
    .replace(/\[([^\]\n]+)\]\((https?:\/\/[^)\s]+)\)/g, '$1 ($2)')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
  const seen = new Set<string>();
  const links = sources.filter((s) => s.url && !seen.has(s.url) && seen.add(s.url)).slice(0, MAX_SOURCE_LINKS);
  if (links.length === 0) return body;
  const lines = links.map((s) => `${s.title ? `${s.title}: ` : ''}${s.url}`);
  return `${body}\n\n${links.length === 1 ? 'Source' : 'Sources'}: ${lines.join('\n')}`;
}

export interface RenderEmailInput {
  /** The transcript message's text (a shaped agent reply or a human desk reply). */
  content: string;
  /** The customer's message this answers, quoted shortly below the reply. */
  quoted?: { text: string; from: string; date: Date };
  /** Rewrites a URL of the body into its tracked form (click tracking); identity when off. */
  trackLink?: (url: string) => string;
  /** URL of the open-tracking pixel; none when off. */
  pixelUrl?: string;
}

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"')\]]+[^\s<>"')\].,;:!?]/g;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const attribution = (q: NonNullable<RenderEmailInput['quoted']>) => `On ${q.date.toUTCString()}, ${q.from} wrote:`;

/** The plain-text and HTML alternatives of an outgoing email. */
export function renderEmail(input: RenderEmailInput): { text: string; html: string } {
  const track = input.trackLink ?? ((u: string) => u);
  const quote = input.quoted && input.quoted.text.trim() ? input.quoted : undefined;
  const text = [input.content.replace(URL_PATTERN, (u) => track(u)), ...(quote ? ['', attribution(quote), quoteText(quote.text)] : [])].join('\n');

  const linkify = (s: string) => {
    let out = '';
    let at = 0;
    for (const m of s.matchAll(URL_PATTERN)) {
      out += escapeHtml(s.slice(at, m.index)) + `<a href="${escapeHtml(track(m[0]))}">${escapeHtml(m[0])}</a>`;
      at = m.index! + m[0].length;
    }
    return out + escapeHtml(s.slice(at));
  };
  const paragraphs = input.content
    .split(/\n{2,}/)
    .map((p) => `<p>${p.split('\n').map(linkify).join('<br>')}</p>`)
    .join('\n');
  const quoteHtml = quote
    ? `\n<p style="color:#666">${escapeHtml(attribution(quote))}</p>\n<blockquote style="margin:0 0 0 .8ex;border-left:1px solid #ccc;padding-left:1ex;color:#666">${escapeHtml(quoteText(quote.text).replace(/^> ?/gm, '')).replace(/\n/g, '<br>')}</blockquote>`
    : '';
  const pixel = input.pixelUrl ? `\n<img src="${escapeHtml(input.pixelUrl)}" width="1" height="1" alt="" style="display:block;border:0">` : '';
  const html = `<!doctype html>\n<html><body>\n${paragraphs}${quoteHtml}${pixel}\n</body></html>`;
  return { text, html };
}
