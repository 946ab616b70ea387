import { endSentence, splitSentences, stripMarkdown } from '../../platform/text';
import { isGsm7, segmentSms, type SmsEncoding } from '../../sms/segmenter';

/**
 * The segment budget of an agent's SMS reply, links included: 3 segments, i.e. at most 459 GSM-7
 * characters (3 × 153) or 201 UCS-2 code units (3 × 67). A longer answer loses its last sentences.
 */
export const SMS_REPLY_MAX_SEGMENTS = 3;
/** Cited sources linked in one reply, at most (the first ones cited). */
export const SMS_REPLY_MAX_LINKS = 2;

export interface ShapeSmsReplyInput {
  /** The agent's reply as the planner wrote it: may hold markdown and [n] citation marks. */
  text: string;
  /** Short links of the cited sources, in citation order (duplicates are dropped). */
  links: string[];
  maxSegments?: number;
  maxLinks?: number;
}

export interface ShapedSmsReply {
  body: string;
  segments: number;
  encoding: SmsEncoding;
  /** Sentences (or words) were left out to stay within the budget. */
  shortened: boolean;
}

/** [1], [1, 2], [^1], 【1】: the citation marks planners write after a statement. */
const CITATION_MARK = /[ \t]*(?:\[\^?|【)\d{1,3}(?:[ \t]*[,;][ \t]*\d{1,3})*(?:\]|】)/g;

/**
 * Typographic characters outside GSM-7 that each force a whole reply into UCS-2 (70 instead of 160
 * characters a segment), with their GSM-7 stand-ins. Applied only when that makes the whole reply
 * GSM-7; a reply that is UCS-2 anyway (Greek, Cyrillic, emoji) keeps them.
 */
const GSM_STAND_INS: [RegExp, string][] = [
  [/[‘’‚‛′`´]/g, "'"],
  [/[“”„‟″«»]/g, '"'],
  [/[‐‑‒–—―−]/g, '-'],
  [/…/g, '...'],
  [/[•·▪‣◦]/g, '-'],
  [/[\u00a0\u2000-\u200a\u202f\u205f\u3000]/g, ' '],
  [/[\u200b-\u200d\u2060\ufeff]/g, ''],
];

/**
 * Plain text of a reply: markdown removed (the planner text helper's `stripMarkdown`, plus code fences
 * and thematic breaks), citation marks dropped, each line made a sentence, whitespace collapsed.
 */
export function plainSmsText(text: string): string {
  const lines = stripMarkdown(
    text
      .replace(CITATION_MARK, '')
      .replace(/^[ \t]*(?:```|~~~).*$/gm, '')
      .replace(/^[ \t]*(?:[-*_][ \t]*){3,}$/gm, '')
      .replace(/\|/g, ' '),
  )
    .split(/\r?\n/)
    .map((l) => l.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  return lines
    .map((l, i) => (i < lines.length - 1 && !/[.!?:;…]["'”’)]*$/.test(l) ? endSentence(l) : l))
    .join(' ')
    .replace(/\s+([.,;:!?])/g, '$1')
    .trim();
}

/** Swaps typographic characters for GSM-7 ones when that keeps the whole text in GSM-7. */
export function preferGsm7(text: string): string {
  if (isGsm7(text)) return text;
  let swapped = text;
  for (const [pattern, standIn] of GSM_STAND_INS) swapped = swapped.replace(pattern, standIn);
  return isGsm7(swapped) ? swapped : text;
}

/**
 * An agent's reply shaped for SMS: plain text, GSM-7 where the text allows, the short links of its
 * cited sources appended, and at most `maxSegments` segments counted by the segmenter (GSM-7 or UCS-2,
 * whichever the final body needs). To fit, whole sentences are dropped from the end; if even the first
 * sentence does not fit, links beyond the first are dropped, then the sentence is cut at a word with an
 * ellipsis. Pure.
 */
export function shapeSmsReply(input: ShapeSmsReplyInput): ShapedSmsReply {
  const maxSegments = input.maxSegments ?? SMS_REPLY_MAX_SEGMENTS;
  const links = [...new Set(input.links)].slice(0, input.maxLinks ?? SMS_REPLY_MAX_LINKS);
  const plain = preferGsm7(plainSmsText(input.text));
  const sentences = splitSentences(plain);
  const compose = (text: string, withLinks: string[]) => [text, ...withLinks].filter(Boolean).join(' ');
  const fits = (body: string) => segmentSms(body).segments <= maxSegments;
  const done = (body: string, shortened: boolean): ShapedSmsReply => {
    const s = segmentSms(body);
    return { body, segments: s.segments, encoding: s.encoding, shortened };
  };

  if (fits(compose(plain, links))) return done(compose(plain, links), false);
  for (let keep = links.length; keep >= Math.min(1, links.length); keep--) {
    const kept = links.slice(0, keep);
    for (let n = sentences.length - 1; n >= 1; n--) {
      const body = compose(sentences.slice(0, n).join(' '), kept);
      if (fits(body)) return done(body, true);
    }
  }
  // Not even the first sentence fits: cut it at a word, keeping the first link when one fits at all.
  const first = sentences[0] ?? plain;
  const ellipsis = isGsm7(first) ? '...' : '…';
  for (const kept of links.length > 0 ? [links.slice(0, 1), []] : [[]]) {
    const words = first.split(' ');
    for (let n = words.length - 1; n >= 1; n--) {
      const body = compose(`${words.slice(0, n).join(' ').replace(/[\s,;:.-]+$/, '')}${ellipsis}`, kept);
      if (fits(body)) return done(body, true);
    }
  }
  // A single word longer than the budget: cut by characters (never splitting a surrogate pair).
  const chars = [...first];
  let body = '';
  for (const c of chars) {
    if (!fits(`${body}${c}${ellipsis}`)) break;
    body += c;
  }
  return done(`${body}${ellipsis}`, true);
}
