import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { linkCitedPassages } from '../../src/runs/run-retrieval';
import type { StoredRetrievalItem } from '../../src/runs/run.schemas';

const item = (n: number, over: Partial<StoredRetrievalItem> = {}): StoredRetrievalItem => ({
  source: 'kb_1', source_id: `src_${n}`, title: `Title ${n}`, snippet: `Snippet ${n}`, url: null, score: 1 - n / 10, cited: false,
  content: `Passage ${n}`, section: n % 2 ? `Section ${n}` : null, ...over,
});

describe('linkCitedPassages', () => {
  it('asks for every cited passage without a url of its own in one call and puts each link on its passage', async () => {
    const calls: unknown[] = [];
    const citationPages = {
      async linkPassages(input: { passages: readonly { sourceId: string }[] }) {
        calls.push(input);
        return input.passages.map((p) => (p.sourceId === 'src_4' ? null : `https://example.test/c/${p.sourceId}`));
      },
    };
    const retrieval = [item(1), item(2, { url: 'https://help.example.test/own' }), item(3), item(4), item(5), item(6, { source_id: '' })];
    const run = { id: 'run_1', account_id: 'acct_1', livemode: true };
    const linked = await linkCitedPassages(citationPages, run, retrieval, [1, 2, 4, 5, 6]);
    assert.deepEqual(calls, [{
      accountId: 'acct_1', livemode: true, runId: 'run_1',
      passages: [
        { sourceId: 'src_1', title: 'Title 1', section: 'Section 1', content: 'Passage 1' },
        { sourceId: 'src_4', title: 'Title 4', section: null, content: 'Passage 4' },
        { sourceId: 'src_5', title: 'Title 5', section: 'Section 5', content: 'Passage 5' },
      ],
    }]);
    assert.deepEqual(linked.map((r) => r.url), ['https://example.test/c/src_1', 'https://help.example.test/own', null, null, 'https://example.test/c/src_5', null]);
    assert.deepEqual(retrieval.map((r) => r.url), [null, 'https://help.example.test/own', null, null, null, null], 'the retrieval given is left as it was');
  });

  it('makes no call when no cited passage needs a page', async () => {
    const citationPages = { linkPassages: async () => assert.fail('not called') };
    const retrieval = [item(1, { url: 'https://help.example.test/own' }), item(2)];
    assert.deepEqual(await linkCitedPassages(citationPages, { id: 'run_1', account_id: 'acct_1', livemode: false }, retrieval, [1]), retrieval);
  });
});
