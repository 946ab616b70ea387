import type { Phrases } from './local-phrases';
import type { PlannerToolResult } from '../port';
import { contentTerms, endSentence, identifierWords, normalise, stem, stripMarkdown, truncate } from '../../../platform/text';

/**
 * A tool's JSON result in plain words: a message-like field when the tool wrote one, else its most salient
 * fields ("Status: shipped; Carrier: DHL; Estimated delivery: 2025-03-06"). Fields whose names share words
 * with the question come first, then well-known salient names; echoes of the call's own arguments and ids
 * last.
 */
export interface ToolSummary {
  text: string;
  /** Whether the result held anything to report. */
  substantive: boolean;
  /** The text is the tool's own message (no "Here's what I found" needed). */
  verbatim?: boolean;
}

const MESSAGE_KEYS = ['message', 'reply', 'summary', 'answer', 'text', 'description'];
const SALIENT = new Set(
  `status state eta estimated delivery delivered shipped tracking carrier total amount balance price due date
  expires expiry plan result available availability quantity count name time slot location address reason`
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => stem(normalise(w))),
);

type Field = { path: string[]; value: string; rank: number; order: number };

const humanise = (path: string[]) => {
  const words = path.flatMap((p) => identifierWords(p));
  const label = words.join(' ');
  return label.charAt(0).toUpperCase() + label.slice(1);
};

function render(value: unknown, phrases: Phrases): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'boolean') return value ? phrases.yes : phrases.no;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return truncate(stripMarkdown(value).replace(/\s+/g, ' ').trim(), 120) || undefined;
  if (Array.isArray(value)) {
    const items = value.map((v) => (typeof v === 'object' && v !== null ? undefined : render(v, phrases))).filter(Boolean);
    if (items.length === value.length && items.length > 0) return items.slice(0, 3).join(', ') + (items.length > 3 ? ', …' : '');
    return value.length ? `${value.length}` : undefined;
  }
  return undefined;
}

export function summariseToolResult(result: unknown, call: PlannerToolResult, question: string, phrases: Phrases, maxFields: number): ToolSummary {
  if (typeof result === 'string' || typeof result === 'number' || typeof result === 'boolean') {
    const text = render(result, phrases);
    return text ? { text: endSentence(text), substantive: true } : { text: phrases.noDetails, substantive: false };
  }
  if (result === null || result === undefined || typeof result !== 'object') return { text: phrases.noDetails, substantive: false };
  if (Array.isArray(result)) {
    const text = render(result, phrases);
    if (result.length > 0 && result.every((r) => r && typeof r === 'object' && !Array.isArray(r))) {
      return summariseToolResult(result[0], call, question, phrases, maxFields);
    }
    return text ? { text: endSentence(text), substantive: true } : { text: phrases.noDetails, substantive: false };
  }
  const obj = result as Record<string, unknown>;
  for (const k of MESSAGE_KEYS) {
    const v = obj[k];
    if (typeof v === 'string' && v.trim() && v.length <= 400) return { text: endSentence(stripMarkdown(v).replace(/\s+/g, ' ').trim()), substantive: true, verbatim: true };
  }

  const questionTerms = new Set(contentTerms(question));
  const argValues = new Set(Object.values(call.arguments ?? {}).map((v) => String(v)));
  const fields: Field[] = [];
  const walk = (o: Record<string, unknown>, prefix: string[], depth: number) => {
    for (const [k, v] of Object.entries(o)) {
      if (k.startsWith('_')) continue;
      const path = [...prefix, k];
      if (v && typeof v === 'object' && !Array.isArray(v)) {
        if (depth < 1) walk(v as Record<string, unknown>, path, depth + 1);
        continue;
      }
      const value = render(v, phrases);
      if (value === undefined) continue;
      const keyTerms = identifierWords(k).map((w) => stem(normalise(w)));
      let rank = 0;
      if (keyTerms.some((t) => questionTerms.has(t))) rank += 2;
      if (keyTerms.some((t) => SALIENT.has(t))) rank += 1;
      if (argValues.has(String(v))) rank -= 1.5;
      if (/(^|_)id$|Id$|^url$|_url$|^href$|^link$/.test(k)) rank -= 1;
      if (prefix.length) rank -= 0.25;
      fields.push({ path, value, rank, order: fields.length });
    }
  };
  walk(obj, [], 0);
  if (fields.length === 0) return { text: phrases.noDetails, substantive: false };
  // Echoes of the arguments and ids only when there is little else to say.
  const informative = fields.filter((f) => f.rank >= 0);
  const chosen = [...(informative.length >= 2 ? informative : fields)].sort((a, b) => b.rank - a.rank || a.order - b.order).slice(0, maxFields).sort((a, b) => a.order - b.order);
  return { text: endSentence(chosen.map((f) => `${humanise(f.path)}: ${f.value}`).join('; ')), substantive: true };
}
