import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchRestrictedTopic, stem } from '../../src/agents/guardrails/restricted-topics';

const topics = ['legal advice', 'medical diagnosis', 'competitor pricing', 'refunds over $500'];
const topicOf = (text: string, list: readonly string[] = topics) => matchRestrictedTopic({ text, topics: list })?.topic ?? null;

describe('matchRestrictedTopic', () => {
  it('matches a topic through its words, their inflections and the synonym table', () => {
    assert.deepEqual(matchRestrictedTopic({ text: 'Should I SUE my landlord?', topics }), { topic: 'legal advice', matched: 'sue' });
    assert.equal(topicOf('Can my lawyer call you about the contract?'), 'legal advice');
    assert.equal(topicOf('Is that legal advice you are giving me?'), 'legal advice');
    assert.deepEqual(matchRestrictedTopic({ text: 'Can you diagnose this rash for me?', topics }), {
      topic: 'medical diagnosis',
      matched: 'diagnose',
    });
    assert.equal(topicOf('My doctor gave me a diagnosis, is it right?'), 'medical diagnosis');
    assert.deepEqual(matchRestrictedTopic({ text: "How does your pricing compare to your competitors'?", topics }), {
      topic: 'competitor pricing',
      matched: 'competitors pricing',
    });
  });

  it('compares amounts for topics with a threshold, counting only currency amounts when the topic has one', () => {
    assert.deepEqual(matchRestrictedTopic({ text: 'I want a refund of $650 for my order', topics }), {
      topic: 'refunds over $500',
      matched: 'refund $650',
    });
    assert.equal(topicOf('Please refund 1,200 EUR to my card'), 'refunds over $500');
    assert.equal(topicOf('can I get a refund of $1.5k'), 'refunds over $500');
    assert.equal(topicOf('I want a refund of $120'), null);
    assert.equal(topicOf('refund for order 123456 please'), null);
    assert.equal(topicOf('Is the refund processed?'), null);
    assert.equal(topicOf('I have 12 items in my order', ['orders over 10 items']), 'orders over 10 items');
    assert.equal(topicOf('I have 3 items in my order', ['orders over 10 items']), null);
  });

  it('does not fire on unrelated or merely neighbouring text', () => {
    for (const text of [
      'What are your opening hours on Sunday?',
      'Where is my parcel? It was due yesterday.',
      'I have a doctor appointment, can you deliver on Friday instead?',
      'What is the price of the blue jacket?',
      'Can I get a refund?',
      'My legs hurt after the hike, anyway, where is my order?',
      '',
    ]) {
      assert.equal(topicOf(text), null, text);
    }
    assert.equal(matchRestrictedTopic({ text: 'Should I sue?', topics: [] }), null);
  });

  it('is case-insensitive and Unicode-aware', () => {
    assert.equal(topicOf('ÉTAT DE SANTÉ: diagnostic médical urgent', ['diagnostic médical']), 'diagnostic médical');
    assert.equal(topicOf('diagnostic medical', ['Diagnostic Médical']), 'Diagnostic Médical');
    assert.equal(topicOf('我需要法律咨询', ['法律咨询']), '法律咨询');
    assert.equal(topicOf('我想查询订单', ['法律咨询']), null);
    assert.equal(topicOf('Ｓｈｏｕｌｄ I ｓｕｅ them?'), 'legal advice');
  });

  it('returns the first configured topic that matches and ignores topics with no content words', () => {
    assert.equal(topicOf('My doctor says I should sue', ['medical diagnosis', 'legal advice']), 'legal advice');
    assert.equal(topicOf('My doctor diagnosed it and I should sue', ['medical diagnosis', 'legal advice']), 'medical diagnosis');
    assert.equal(topicOf('anything about it', ['anything about', 'the']), null);
  });

  it('stems inflections and a few derivations the same way on both sides', () => {
    assert.deepEqual(['advise', 'advised', 'advising', 'advises'].map(stem), ['advis', 'advis', 'advis', 'advis']);
    assert.deepEqual(['diagnosis', 'diagnose', 'diagnoses', 'diagnosed'].map(stem), ['diagnos', 'diagnos', 'diagnos', 'diagnos']);
    assert.deepEqual(['price', 'prices', 'pricing', 'priced'].map(stem), ['pric', 'pric', 'pric', 'pric']);
    assert.deepEqual(['refunds', 'refunded', 'shipping', 'taxes', 'remedies'].map(stem), ['refund', 'refund', 'ship', 'tax', 'remedy']);
  });

  it('stays linear on adversarial input', () => {
    const adversarial = `refund ${'1,'.repeat(100_000)} ${'9'.repeat(100_000)}`;
    const t = performance.now();
    matchRestrictedTopic({ text: adversarial, topics });
    // Generous: a backtracking pattern would take minutes here.
    assert.ok(performance.now() - t < 5000);
  });
});
