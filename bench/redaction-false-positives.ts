/**
 * Redaction false positives: runs redactText over texts that hold no card, IBAN or national id (the
 * SciFact abstracts, the FAQ intents' example phrasings and the FAQ queries) and prints, as one JSON
 * line, how many texts and characters were read, how many redactions fired per kind, and every match
 * with a few characters of context, so each one can be judged by eye.
 *
 *   npm run bench:redaction [-- --data <folder holding scifact/ and faq/>]
 */
import fs from 'node:fs';
import path from 'node:path';
import { findSensitiveValues } from '../src/privacy/redaction';
import { machineInfo, round } from './support';

const arg = process.argv.indexOf('--data');
const DATA = arg > 0 ? path.resolve(process.argv[arg + 1]!) : path.resolve(__dirname, '../../shared/data');

interface Doc {
  _id: string;
  title?: string;
  text: string;
}

const readJsonl = (file: string): Doc[] =>
  fs.readFileSync(path.join(DATA, file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Doc);

const sets: { name: string; file: string }[] = [
  { name: 'scifact_corpus', file: 'scifact/corpus.jsonl' },
  { name: 'faq_corpus', file: 'faq/corpus.jsonl' },
  { name: 'faq_queries', file: 'faq/queries.jsonl' },
];

const started = performance.now();
const results = sets.map(({ name, file }) => {
  const docs = readJsonl(file);
  let chars = 0;
  let documentsWithMatch = 0;
  const byKind: Record<string, number> = {};
  const matches: { id: string; kind: string; value: string; context: string }[] = [];
  for (const doc of docs) {
    let matched = false;
    for (const text of [doc.title ?? '', doc.text]) {
      chars += text.length;
      const found = findSensitiveValues(text);
      if (found.length > 0) matched = true;
      for (const m of found) {
        byKind[m.kind] = (byKind[m.kind] ?? 0) + 1;
        matches.push({ id: doc._id, kind: m.kind, value: text.slice(m.start, m.end), context: text.slice(Math.max(0, m.start - 40), m.end + 40) });
      }
    }
    if (matched) documentsWithMatch++;
  }
  const redactions = matches.length;
  return {
    set: name,
    documents: docs.length,
    characters: chars,
    redactions,
    documents_with_a_redaction: documentsWithMatch,
    rate_per_1000_documents: round((1000 * documentsWithMatch) / docs.length, 2),
    by_kind: byKind,
    matches,
  };
});

console.log(
  JSON.stringify({
    bench: 'redaction-false-positives',
    elapsed_ms: Math.round(performance.now() - started),
    sets: results,
    total_redactions: results.reduce((a, r) => a + r.redactions, 0),
    machine: machineInfo(),
  }),
);
