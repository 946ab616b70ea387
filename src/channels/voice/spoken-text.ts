/**
 * Turns an agent's written reply into text for a voice to read: no markdown, no citation marks, no URLs
 * (a link read out helps nobody), symbols spelled out, short sentences, and a bounded length (a caller
 * cannot skim: past a few sentences they stop listening). Pure; the voice reply channel uses it.
 */

export interface SpokenTextOptions {
  /** At most this many sentences (default 4). */
  maxSentences?: number;
  /** At most this many characters (default 400); the first sentence is cut at a word if it is longer. */
  maxChars?: number;
}

/** Said when nothing speakable is left of a reply (it was only a link or a table). */
export const UNSPEAKABLE_REPLY = 'I have the answer in writing, but I cannot read it out. Let me know if I should connect you with a specialist.';

const URL_PATTERN = /(?:\bhttps?:\/\/|\bwww\.)[^\s<>()"]+/gi;
/** A URL after one of these words becomes "our website" ("see our website"); elsewhere it is dropped. */
const URL_LEAD = /\b(at|on|visit|see|via|from|in|to)\s+$/i;

export function toSpokenText(text: string, opts: SpokenTextOptions = {}): string {
  const maxSentences = opts.maxSentences ?? 4;
  const maxChars = opts.maxChars ?? 400;
  let t = text.replace(/\r\n?/g, '\n');

  // Code blocks carry nothing a caller can use; inline code keeps its text.
  t = t.replace(/```[\s\S]*?(```|$)/g, ' ');
  t = t.replace(/`([^`]*)`/g, '$1');
  // Images go, links keep their label; autolinks go.
  t = t.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1');
  t = t.replace(/\[([^\]]+)\]\((?:[^)\s]+)(?:\s+"[^"]*")?\)/g, '$1');
  t = t.replace(/<(?:https?:\/\/|mailto:)[^>]*>/gi, ' ');
  // Citation marks: [1], [1, 2], [1-3], [^1].
  t = t.replace(/\s*\[\^?\d+(?:\s*[,–-]\s*\d+)*\]/g, '');
  t = t.replace(URL_PATTERN, (url, offset: number, whole: string) => (URL_LEAD.test(whole.slice(Math.max(0, offset - 12), offset)) ? 'our website' : ' '));

  // Line structure: headings, quotes, list items and table rows each become a sentence of their own.
  const lines = t.split('\n').map((line) =>
    line
      .replace(/^\s{0,3}#{1,6}\s+/, '')
      .replace(/^\s*>\s?/, '')
      .replace(/^\s*(?:[-*+•]|\d{1,3}[.)])\s+/, '')
      .replace(/^\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*$/, '')
      .replace(/\s*\|\s*/g, ', ')
      .replace(/^,\s*|,\s*$/g, '')
      .trim(),
  );
  t = lines
    .filter((l) => l.length > 0)
    .map((l) => (/[.!?:;]$/.test(l) ? l : `${l}.`))
    .join(' ');

  // Emphasis markers and stray brackets.
  t = t.replace(/(\*\*|__)(.+?)\1/g, '$2').replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=[\s.,;:!?)]|$)/g, '$1$2');
  t = t.replace(/[*_#`~[\]{}<>]/g, ' ');
  // Abbreviations that would end a sentence early, and symbols a voice reads badly.
  t = t
    .replace(/\be\.g\.,?/gi, 'for example')
    .replace(/\bi\.e\.,?/gi, 'that is')
    .replace(/\betc\./gi, 'and so on.')
    .replace(/\s*&\s*/g, ' and ')
    .replace(/(\d)\s*%/g, '$1 percent')
    .replace(/\s+\/\s+/g, ' or ');
  // Tidy what the removals left: empty parentheses, doubled punctuation, space before punctuation.
  t = t
    .replace(/\(\s*\)/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\s+([.,;:!?])/g, '$1')
    .replace(/([.,;:!?])(?:\s*[.,;:])+/g, '$1')
    .replace(/:(\s|$)/g, '.$1')
    .replace(/;\s+/g, '. ')
    .trim();

  // A stop followed at once by a letter or digit (3.5 days, help@acme.com) does not end a sentence.
  const sentences = (t.match(/(?:[^.!?]|[.!?](?=[\p{L}\p{N}]))+(?:[.!?]+|$)/gu) ?? [])
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s))
    .map((s) => s.charAt(0).toUpperCase() + s.slice(1))
    .map((s) => (/[.!?]$/.test(s) ? s : `${s}.`));
  if (sentences.length === 0) return UNSPEAKABLE_REPLY;

  const out: string[] = [];
  let length = 0;
  for (const s of sentences) {
    if (out.length >= maxSentences) break;
    const added = length === 0 ? s.length : length + 1 + s.length;
    if (added > maxChars) {
      if (out.length === 0) out.push(cutAtWord(s, maxChars));
      break;
    }
    out.push(s);
    length = added;
  }
  return out.join(' ');
}

function cutAtWord(sentence: string, maxChars: number): string {
  const room = sentence.slice(0, maxChars - 1);
  const space = room.lastIndexOf(' ');
  const cut = (space > maxChars / 2 ? room.slice(0, space) : room).replace(/[\s,;:]+$/, '');
  return `${cut}.`;
}
