import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderSavedReply, unknownVariables } from '../../src/conversations/saved-reply-template';
import { searchQuery } from '../../src/conversations/inbox.service';

describe('saved reply variables', () => {
  it('fills in known variables, uses the fallback for a missing value, and names unknown ones', () => {
    assert.equal(renderSavedReply('Hi {{ customer.name | there }}, {{agent.name}} here ({{customer.email}}).', { 'agent.name': 'Ana', 'customer.email': 'kim@example.com' }), 'Hi there, Ana here (kim@example.com).');
    assert.equal(renderSavedReply('Hi {{customer.name}}!', {}), 'Hi !');
    assert.deepEqual(unknownVariables('{{customer.nmae}} {{ customer.name }} {{agent}}'), ['customer.nmae', 'agent']);
    assert.deepEqual(unknownVariables('No variables, {single} braces'), []);
  });

  it('expands only the documented variables, once: a value is not a template, an object property is not a variable', () => {
    const values = { 'customer.name': '{{agent.name}} $& $1', 'agent.name': 'Ana' };
    assert.equal(renderSavedReply('Hi {{customer.name}}', values), 'Hi {{agent.name}} $& $1', "a customer's name is text, never expanded again");
    assert.equal(renderSavedReply('{{constructor}} {{__proto__|x}} {{toString}}', values), '{{constructor}} {{__proto__|x}} {{toString}}');
    assert.deepEqual(unknownVariables('{{constructor}} {{__proto__}}'), ['constructor', '__proto__']);
  });

  it('scans a long text of unclosed or nested braces in linear time (the 5,000-character limit, many times over)', () => {
    for (const text of ['{{'.repeat(50_000), `{{${'a|'.repeat(50_000)}`, `${'{{customer.name'.repeat(10_000)}}}`]) {
      assert.equal(unknownVariables(text).length <= 1, true);
      assert.equal(renderSavedReply(text, { 'customer.name': 'Kim' }).length > 0, true);
    }
  });
});

describe('inbox search terms', () => {
  it('keeps letters and digits as prefix terms: no input is tsquery syntax', () => {
    assert.equal(searchQuery('Zebrawood  table!'), 'zebrawood:* & table:*');
    assert.equal(searchQuery("refund & | ! ( ) ' :*"), 'refund:*');
    assert.equal(searchQuery('Lieferung für Müller 42'), 'lieferung:* & für:* & müller:* & 42:*');
    assert.equal(searchQuery('!!! ***'), undefined);
    assert.equal(searchQuery('a b c d e f g h i j')?.split(' & ').length, 8, 'at most eight words');
  });
});
