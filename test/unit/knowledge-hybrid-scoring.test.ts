import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzerFor } from '../../src/knowledge/index/analyzers';
import { contentHash, passageEmbeddingText } from '../../src/knowledge/index/embedding-text';
import { calibrate, dot, fuseScores, fusionFeatures, fusionModelOf, fusionSetting, FUSION_FEATURES, DEFAULT_FUSION, smallBase } from '../../src/knowledge/index/scoring';
import { inOtherLanguage } from '../../src/platform/text';
import { decodeVector, encodeVector } from '../../src/knowledge/index/vector-index.repo';
import { normalizeFilter } from '../../src/knowledge/metadata-filter';

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

  it('fuses into a probability that rises with either side, and with how far the passage stands out from the rest', () => {
    const base = [{ x: 0.1, cos: 0.80 }, { x: 0, cos: 0.79 }, { x: 0, cos: 0.78 }, { x: 0.05, cos: 0.79 }];
    const [plain] = fuseScores([{ x: 0.3, cos: 0.86 }, ...base]);
    const [nearer] = fuseScores([{ x: 0.3, cos: 0.9 }, ...base]);
    const [wordier] = fuseScores([{ x: 0.6, cos: 0.86 }, ...base]);
    assert.ok(nearer! > plain! && wordier! > plain!, `${plain} ${nearer} ${wordier}`);
    // The same passage among look-alikes (an off-topic question is about as near to everything) scores lower.
    const [crowded] = fuseScores([{ x: 0.3, cos: 0.86 }, ...base.map((c) => ({ ...c, cos: c.cos + 0.055 }))]);
    assert.ok(crowded! < plain!, `${crowded} vs ${plain}`);
    // An off-topic question: everything equally far.
    const off = fuseScores([{ x: 0, cos: 0.79 }, { x: 0, cos: 0.788 }, { x: 0, cos: 0.785 }, { x: 0, cos: 0.78 }]);
    assert.ok(Math.max(...off) < 0.5, `off-topic: ${off}`);
    for (const p of [...off, plain!, nearer!, wordier!]) assert.ok(p >= 0 && p <= 1);
    // A question in another language shares no words with the base and all its cosines sit lower: the
    // passage that stands out on the dense side still scores above one lost among look-alikes.
    const foreign = [{ x: 0, cos: 0.77 }, { x: 0, cos: 0.765 }, { x: 0, cos: 0.76 }, { x: 0, cos: 0.755 }];
    const [clear] = fuseScores([{ x: 0, cos: 0.83 }, ...foreign]);
    const [lost] = fuseScores([{ x: 0, cos: 0.83 }, ...foreign.map((c) => ({ ...c, cos: c.cos + 0.055 }))]);
    assert.ok(clear! > lost!, `${clear} vs ${lost}`);
    // The features of a candidate, in FUSION_FEATURES order, read against the others; without sentence
    // vectors the best sentence is the passage itself.
    const [leader, other] = fusionFeatures([{ x: 0.5, cos: 0.9 }, { x: 0.1, cos: 0.8 }]);
    assert.equal(leader!.length, FUSION_FEATURES.length);
    assert.deepEqual(leader!.slice(3).map((v) => Math.round(v * 1000) / 1000), [0.1, 0.9, 0.1, 0, 0]);
    assert.deepEqual(other!.slice(4).map((v) => Math.round(v * 1000) / 1000), [0.8, 0, 0, 0]);
    // A model's weights are read in FUSION_FEATURES order; all zero is a coin toss.
    assert.equal(DEFAULT_FUSION.weights.length, FUSION_FEATURES.length);
    assert.deepEqual(fuseScores([{ x: 0.4, cos: 0.5 }], { weights: FUSION_FEATURES.map(() => 0), bias: 0 }), [0.5]);
    // A lone candidate has nothing to stand out from: an off-topic question against a one-passage base is
    // not a clear winner (it was 0.997 when a missing runner-up counted as the widest margin).
    const [lone] = fuseScores([{ x: 0, cos: 0.78 }]);
    assert.ok(lone! < 0.1, `lone off-topic candidate: ${lone}`);
    assert.deepEqual(fusionFeatures([{ x: 0.2, cos: 0.9, sentCos: 0.93 }])[0]!.slice(2), [0, 0, 0.93, 0, 0, 0]);
    assert.equal(calibrate(0, 3), 0);
  });

  it('reads the language of question and passage: a passage in another language is not a weak one', () => {
    const rest = [{ x: 0, cos: 0.81 }, { x: 0, cos: 0.805 }, { x: 0, cos: 0.8 }, { x: 0, cos: 0.795 }];
    // The same cosines: a German question's English passage scores higher than a same-language one would.
    const [same] = fuseScores([{ x: 0, cos: 0.84 }, ...rest]);
    const [cross] = fuseScores([{ x: 0, cos: 0.84, otherLanguage: true }, ...rest.map((c) => ({ ...c, otherLanguage: true }))]);
    assert.ok(cross! > same!, `${same} → ${cross}`);
    // The scope's size is read (small_base) but weighs nothing in the shipped fit (measured, not shipped).
    const cands = [{ x: 0.3, cos: 0.86 }, ...rest];
    assert.deepEqual(fuseScores(cands, DEFAULT_FUSION, { passages: 8 }), fuseScores(cands));
    assert.equal(smallBase(1), 1);
    assert.equal(smallBase(100), 0);
    assert.ok(Math.abs(smallBase(8) - 0.548) < 0.001);
    // Languages by stop words: unclear sides count as the same language.
    assert.equal(inOtherLanguage('Wie lange dauert der Versand?', 'Standard shipping takes 3 to 5 business days and is free over $50.'), true);
    assert.equal(inOtherLanguage('Combien de temps dure la livraison ?', 'Standard shipping takes 3 to 5 business days and is free over $50.'), true);
    assert.equal(inOtherLanguage('how long does shipping take', 'Standard shipping takes 3 to 5 business days and is free over $50.'), false);
    assert.equal(inOtherLanguage('shipping costs', 'Standard shipping takes 3 to 5 business days.'), false);
  });

  it("reads the passage's best sentence: a paragraph whose one sentence is the answer outscores its own passage cosine", () => {
    const rest = [{ x: 0, cos: 0.81 }, { x: 0, cos: 0.805 }, { x: 0, cos: 0.8 }, { x: 0, cos: 0.795 }];
    const [paragraph] = fuseScores([{ x: 0.1, cos: 0.82 }, ...rest]);
    const [answering] = fuseScores([{ x: 0.1, cos: 0.82, sentCos: 0.86 }, ...rest]);
    assert.ok(paragraph! < 0.5 && answering! > 0.5, `${paragraph} → ${answering}`);
    // A best sentence below the passage (no sentence says it; the paragraph only fits as a whole) does not lift it.
    const [vague] = fuseScores([{ x: 0.1, cos: 0.82, sentCos: 0.81 }, ...rest]);
    assert.ok(vague! < paragraph!, `${vague} vs ${paragraph}`);
  });

  it('reads EMBEDDINGS_FUSION by name, and refuses a fit for another feature set', () => {
    const named: Record<string, number> = { ...Object.fromEntries(FUSION_FEATURES.map((k, i) => [k, i + 1])), bias: -3 };
    assert.deepEqual(fusionModelOf(named), { weights: FUSION_FEATURES.map((_, i) => i + 1), bias: -3 });
    // What the bench prints reads back as the same model.
    const line = fusionSetting(DEFAULT_FUSION);
    assert.deepEqual(fusionModelOf(Object.fromEntries(line.split(',').map((p) => p.split('=')).map(([k, v]) => [k!, Number(v)]))), DEFAULT_FUSION);
    const { sentence_cos: _dropped, ...missing } = named;
    assert.throws(() => fusionModelOf(missing), /missing: sentence_cos/);
    assert.throws(() => fusionModelOf({ ...named, agreement: 0.2 }), /unknown: agreement/);
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
