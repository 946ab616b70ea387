import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkDocument } from '../../src/knowledge/ingest/chunker';
import { atxHeading, extractMarkdown, stripTags } from '../../src/knowledge/ingest/markdown-extract';

/** Lines an attacker would upload: each used to make a backtracking pattern go quadratic or worse. */
const N = 50_000;
const hostile: Record<string, string> = {
  'heading with a run of spaces before a letter': `# a${' '.repeat(N)}x`,
  'heading with a run of spaces before a line separator': `# x${' '.repeat(N)}\u2028x`,
  'heading of hashes and spaces': `#${' #'.repeat(N)}x`,
  'run of <': `a ${'<'.repeat(N)}`,
  'run of <x': `a ${'<x'.repeat(N)}`,
  'run of [![': `a ${'[!['.repeat(N)}`,
  'links without a closing paren': `a ${'[t]('.repeat(N)}`,
  'setext-looking underline': `Title\n${'='.repeat(N)} x`,
  'thematic-break-looking line': `${'- '.repeat(N)}x`,
  'ordered-list-looking digits': `${'1'.repeat(N)}x`,
  'quote markers': `${'> '.repeat(N)}x`,
  'fence-looking line': `${' '.repeat(N)}\`\`x`,
};

describe('markdown extraction on hostile input', () => {
  for (const [name, line] of Object.entries(hostile)) {
    it(`parses ${name} in bounded time`, { timeout: 20_000 }, () => {
      const started = performance.now();
      const doc = extractMarkdown(`${line}\n\n${line}\n`, 'f');
      chunkDocument(doc, { maxChars: 2000, overlapChars: 200 });
      const ms = performance.now() - started;
      // Generous: the backtracking patterns this replaced took 10 s and more on these lines.
      assert.ok(ms < 5000, `${name}: ${Math.round(ms)} ms`);
    });
  }

  it('keeps CommonMark heading semantics', () => {
    assert.deepEqual(atxHeading('## Refunds ##'), { level: 2, text: 'Refunds' });
    assert.deepEqual(atxHeading('   # C#'), { level: 1, text: 'C#' });
    assert.deepEqual(atxHeading('# '), { level: 1, text: '' });
    assert.equal(atxHeading('####### seven'), undefined);
    assert.equal(atxHeading('#nospace'), undefined);
    assert.equal(atxHeading('    # indented code'), undefined);
  });

  it('strips tags, links and emphasis as before', () => {
    const doc = extractMarkdown('Read the [guide](https://x.test/g) and ![logo](l.png) <b>now</b> **please** a < b', 'f');
    assert.deepEqual(doc.blocks, [{ kind: 'text', text: 'Read the guide and logo now please a < b' }]);
    assert.equal(stripTags('<<<a>'), '');
    assert.equal(stripTags('x <> y'), 'x <> y');
  });
});

describe('titles and headings copied into passages', () => {
  it('are capped, however long the document makes them', () => {
    const long = 'Word '.repeat(200_000);
    const doc = extractMarkdown(`# ${long}\n\n## ${long}\n\n### ${long}\n\nBody text.\n`, 'f');
    const chunks = chunkDocument({ ...doc, title: long }, { maxChars: 2000, overlapChars: 200 });
    assert.equal(chunks.length, 1);
    assert.ok(chunks[0]!.title.length <= 200, `title of ${chunks[0]!.title.length}`);
    assert.ok(chunks[0]!.heading!.length <= 500, `heading of ${chunks[0]!.heading!.length}`);
    assert.ok(chunks[0]!.title.endsWith('…'));
    assert.equal(chunks[0]!.content, 'Body text.');
  });
});
