import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chunkDocument } from '../../src/knowledge/ingest/chunker';
import { inScope, scopePrefix } from '../../src/knowledge/ingest/crawler';
import { extractHtml } from '../../src/knowledge/ingest/html-extract';
import { extractMarkdown } from '../../src/knowledge/ingest/markdown-extract';
import { allocatePostings, calibrate } from '../../src/knowledge/index/scoring';
import { matchesFilter } from '../../src/knowledge/metadata-filter';

describe('chunking', () => {
  it('starts a passage at each heading, packs blocks up to the bound and overlaps within a section', () => {
    const doc = extractMarkdown(`# Guide\n\nIntro.\n\n## Refunds\n\n${'Refunds take fourteen days to arrive. '.repeat(20)}\n\n- Keep the receipt.\n`, 'guide.md');
    const chunks = chunkDocument({ ...doc, url: 'https://x.test/guide' }, { maxChars: 300, overlapChars: 60 });
    assert.equal(chunks[0]!.content, 'Intro.');
    assert.equal(chunks[0]!.url, 'https://x.test/guide#guide');
    const refunds = chunks.filter((c) => c.heading === 'Guide › Refunds');
    assert.ok(refunds.length >= 3);
    for (const c of chunks) assert.ok(c.content.length <= 300 + 60, `passage of ${c.content.length} chars`);
    for (const c of refunds) assert.equal(c.url, 'https://x.test/guide#refunds');
    const carried = refunds[1]!.content.split('\n')[0]!;
    assert.ok(carried.length > 0 && carried.length <= 60);
    assert.ok(refunds[0]!.content.endsWith(carried), 'the next passage starts with the tail of the previous one');
    assert.match(refunds[refunds.length - 1]!.content, /Keep the receipt\./);
  });

  it('reads readable HTML: drops navigation and scripts, keeps headings with anchors and list items', () => {
    const page = extractHtml(
      '<html><head><title>T</title><script>var x</script></head><body><nav><a href="/a">A</a></nav><main><h2 id="s">Section</h2><p>Hello <b>world</b></p><ul><li>one</li><li>two</li></ul></main><footer>f</footer></body></html>',
      'https://x.test/docs/p.html',
    );
    assert.equal(page.title, 'T');
    assert.deepEqual(page.blocks, [
      { kind: 'heading', level: 2, text: 'Section', anchor: 's' },
      { kind: 'text', text: 'Hello world' },
      { kind: 'text', text: 'one' },
      { kind: 'text', text: 'two' },
    ]);
    assert.deepEqual(page.links, ['https://x.test/a']);
  });
});

describe('crawl scope', () => {
  it('stays on the host and under the start page directory', () => {
    const start = new URL('https://x.test/docs/index.html');
    assert.equal(scopePrefix(start), '/docs/');
    assert.equal(scopePrefix(new URL('https://x.test/docs')), '/docs/');
    assert.ok(inScope(start, new URL('https://x.test/docs/a/b.html')));
    assert.ok(!inScope(start, new URL('https://x.test/blog/a.html')));
    assert.ok(!inScope(start, new URL('https://other.test/docs/a.html')));
    assert.ok(!inScope(start, new URL('http://x.test/docs/a.html')));
  });
});

describe('scoring', () => {
  it('serves rare terms whole and truncates common ones within the postings budget', () => {
    assert.deepEqual(allocatePostings([10, 20], 100), [10, 20]);
    const take = allocatePostings([50, 10_000, 20_000], 3000);
    assert.equal(take[0], 50);
    assert.ok(take[1]! + take[2]! <= 2950 && take[1]! > 0 && take[2]! > 0);
  });

  it('maps BM25 to [0, 1], monotonic, zero without evidence', () => {
    assert.equal(calibrate(0, 10), 0);
    const low = calibrate(2, 10);
    const high = calibrate(15, 10);
    assert.ok(low > 0 && low < high && high <= 1);
    assert.ok(calibrate(19, 10) > 0.9);
  });

  it('matches metadata filters by equality and `in`, all keys together', () => {
    const m = { locale: 'en', tier: 'pro' };
    assert.ok(matchesFilter(m, { locale: 'en' }));
    assert.ok(matchesFilter(m, { locale: { in: ['fr', 'en'] }, tier: { eq: 'pro' } }));
    assert.ok(!matchesFilter(m, { locale: 'en', tier: 'free' }));
    assert.ok(!matchesFilter(m, { region: 'eu' }));
  });
});
