import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzerFor } from '../../src/knowledge/index/analyzers';
import { contentHash, passageEmbeddingText } from '../../src/knowledge/index/embedding-text';
import { calibrate, calibrateFused, DEFAULT_FUSION, dot } from '../../src/knowledge/index/scoring';
import { decodeVector, encodeVector } from '../../src/knowledge/index/vector-index.repo';
import { normalizeFilter } from '../../src/knowledge/knowledge-retrieval.service';

describe('hybrid scoring pieces', () => {
  it('stores a vector as float32 bytes and sign bits, and reads it back', () => {
    const v = Float32Array.from([0.5, -0.25, 0, 0.75]);
    const { vec, bits } = encodeVector(v);
    assert.equal(vec.length, 16);
    assert.equal(bits, '1001');
    assert.deepEqual([...decodeVector(vec)], [...v]);
    assert.equal(dot(v, v), 0.5 * 0.5 + 0.25 * 0.25 + 0.75 * 0.75);
  });

  it('hashes the embedded text (title, heading, content) so unchanged passages keep their key', () => {
    const a = passageEmbeddingText({ title: 'Refunds', heading: null, content: 'Within 14 days.' });
    assert.equal(a, 'Refunds\nWithin 14 days.');
    assert.deepEqual(contentHash(a), contentHash('Refunds\nWithin 14 days.'));
    assert.notDeepEqual(contentHash(a), contentHash(passageEmbeddingText({ title: 'Refunds', heading: 'Policy', content: 'Within 14 days.' })));
  });

  it('fuses into a calibrated score that grows with either side and stays low when both are weak', () => {
    const weak = calibrateFused(0, 0.72);
    assert.ok(weak < 0.05, `unrelated passage: ${weak}`);
    assert.ok(calibrateFused(0.5, 0.85) > calibrateFused(0.2, 0.85));
    assert.ok(calibrateFused(0.3, 0.9) > calibrateFused(0.3, 0.8));
    assert.ok(calibrateFused(1, 1) <= 1 && calibrateFused(0, 0) >= 0);
    assert.equal(calibrateFused(0.4, 0.5, { lexical: 0, dense: 0, bias: 0 }), 0.5);
    assert.ok(DEFAULT_FUSION.dense > 0 && DEFAULT_FUSION.lexical > 0);
    assert.equal(calibrate(0, 3), 0);
  });

  it("picks the passage locale's analyzer, simple for unknown languages, english without a locale", () => {
    assert.equal(analyzerFor('de'), 'german');
    assert.equal(analyzerFor('de-AT'), 'german');
    assert.equal(analyzerFor('fr_CA'), 'french');
    assert.equal(analyzerFor('ES'), 'spanish');
    assert.equal(analyzerFor('ja'), 'simple');
    assert.equal(analyzerFor(undefined), 'english');
    assert.equal(analyzerFor(' '), 'english');
  });

  it('normalises filters to allowed string values per key', () => {
    assert.deepEqual(normalizeFilter({ year: 2024, public: true, locale: { in: ['de', 'fr'] }, brand: { eq: 'acme' } }), {
      year: ['2024'], public: ['true'], locale: ['de', 'fr'], brand: ['acme'],
    });
    assert.equal(normalizeFilter({}), undefined);
  });
});
