/**
 * Email threading rules (pure): Message-ID syntax, the References chain, reply subjects, and what of a
 * customer's reply is new text (the quoted history below it is not).
 */

/** Message-IDs in a header value (`<a@b> <c@d>`), without angle brackets; a bare id counts as one. */
export function parseMessageIds(value: string | string[] | undefined | null): string[] {
  if (!value) return [];
  const text = Array.isArray(value) ? value.join(' ') : value;
  const bracketed = [...text.matchAll(/<([^<>\s]+)>/g)].map((m) => m[1]!);
  if (bracketed.length > 0) return bracketed;
  const bare = text.trim();
  return bare && !/\s/.test(bare) ? [bare] : [];
}

export const formatMessageId = (id: string) => `<${id}>`;

/** At most this many ids in a References header we write (the root and the latest ones are kept). */
export const MAX_REFERENCES = 20;

/** RFC 5322 §3.6.4: the parent's References (or its In-Reply-To) followed by the parent's Message-ID. */
export function replyReferences(parent: { messageId: string; references: string[]; inReplyTo: string | null }): string[] {
  const chain = parent.references.length > 0 ? parent.references : parent.inReplyTo ? [parent.inReplyTo] : [];
  const all = [...chain.filter((id) => id !== parent.messageId), parent.messageId];
  if (all.length <= MAX_REFERENCES) return all;
  return [all[0]!, ...all.slice(all.length - (MAX_REFERENCES - 1))];
}

const REPLY_PREFIX = /^\s*((re|fwd?|aw|wg|sv|vs|antw|tr|rif|r)\s*(\[\d+\])?\s*:\s*)+/i;

/** The subject without reply/forward prefixes (Re:, Fwd:, AW:, SV:…) and extra whitespace. */
export function baseSubject(subject: string): string {
  return subject.replace(REPLY_PREFIX, '').replace(/\s+/g, ' ').trim();
}

/** The key a subject is matched on: its base, lower-cased. */
export const threadSubjectKey = (subject: string) => baseSubject(subject).toLowerCase();

/** "Re: <base subject>" (one prefix, whatever the thread accumulated). */
export function replySubject(subject: string): string {
  const base = baseSubject(subject);
  return base ? `Re: ${base}` : 'Re:';
}

/** Lines of an email's text examined for its new text, at most (what follows is dropped unread). */
export const MAX_REPLY_LINES = 5_000;

const isQuoteOrBlank = (line: string) => /^\s*>/.test(line) || line.trim() === '';

/**
 * The new text of a customer's email: what precedes the quoted history. Cuts at the first attribution
 * line ("On … wrote:", "Le … a écrit :", "Am … schrieb …:"), an "-----Original Message-----" separator or
 * the trailing run of "> " lines, and drops a trailing signature ("-- " line).
 *
 * Linear in the text: the trailing quote block is found by one backward scan, and at most
 * MAX_REPLY_LINES lines are examined (the stored text is capped far below that anyway).
 */
export function newTextOfReply(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n', MAX_REPLY_LINES);
  // Where the trailing block of quoted (or blank) lines starts: a quote line from there on ends the new text.
  let quoteFrom = lines.length;
  while (quoteFrom > 0 && isQuoteOrBlank(lines[quoteFrom - 1]!)) quoteFrom--;
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (SEPARATOR.test(line.trim())) break;
    // The attribution may be wrapped over two lines by the client ("On Mon, … Ada <ada@…>" / "wrote:").
    if (ATTRIBUTION_START.test(line) && (ATTRIBUTION_END.test(line) || (line.length < 200 && ATTRIBUTION_END.test(lines[i + 1] ?? '')))) break;
    if (i >= quoteFrom && /^\s*>/.test(line)) break;
    if (line === '-- ') break;
    out.push(line);
  }
  const result = out.join('\n').trim();
  return result || lines.join('\n').trim();
}

const SEPARATOR = /^-{2,}\s*(original message|forwarded message|message d'origine|ursprüngliche nachricht)\s*-{2,}$/i;
const ATTRIBUTION_START = /^\s*(on|le|am|el|il|op)\s\S/i;
const ATTRIBUTION_END = /(wrote|a écrit|schrieb|escribió|ha scritto|schreef)\s*:\s*$/i;

/** A short quote of `text` for a reply: its first lines, at most `maxChars`, each prefixed with "> ". */
export function quoteText(text: string, maxChars = 300): string {
  const flat = text.trim();
  const cut = flat.length > maxChars ? `${flat.slice(0, flat.lastIndexOf(' ', maxChars) > maxChars / 2 ? flat.lastIndexOf(' ', maxChars) : maxChars).trimEnd()} …` : flat;
  return cut
    .split('\n')
    .map((l) => (l.trim() ? `> ${l}` : '>'))
    .join('\n');
}
