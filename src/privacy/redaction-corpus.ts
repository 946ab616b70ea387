import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RedactionKind } from './redaction';

/**
 * The redaction corpus (redaction-corpus.jsonl beside this file), what redaction is tested on: one sensitive
 * value per entry written as a customer might (cards with every common separator, Unicode spaces, zero-width
 * characters, over lines; IBANs spaced, dashed, lowercase; national ids), plus near misses (`kind: none`)
 * that must be kept. It lives with the rule it specifies, below every area that tests a sink against it.
 */
export interface CorpusEntry {
  kind: RedactionKind | 'none';
  /** What the entry exercises ("visa, nbsp"). */
  case: string;
  /** The value in compact form (digits and letters only); empty for near misses. */
  value: string;
  text: string;
}

export const REDACTION_CORPUS: CorpusEntry[] = readFileSync(path.join(__dirname, 'redaction-corpus.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as CorpusEntry);

export const SENSITIVE = REDACTION_CORPUS.filter((e) => e.kind !== 'none');
export const NEAR_MISSES = REDACTION_CORPUS.filter((e) => e.kind === 'none');

/**
 * Letters and digits only, NFKC, upper case: a value is "in clear" when its compact form appears here.
 * Default-ignorable characters go first (a Hangul filler is a letter, yet shows nothing).
 */
export const compactForm = (text: string) =>
  text.replace(/\p{Default_Ignorable_Code_Point}/gu, '').normalize('NFKC').replace(/\p{Default_Ignorable_Code_Point}|[^\p{L}\p{N}]/gu, '').toUpperCase();

/** The corpus values (cards and IBANs at least) still readable in `text`, separators and case ignored. */
export function valuesInClear(text: string, values: string[] = SENSITIVE.map((e) => e.value)): string[] {
  const compact = compactForm(text);
  return [...new Set(values)].filter((v) => compact.includes(v.toUpperCase()));
}
