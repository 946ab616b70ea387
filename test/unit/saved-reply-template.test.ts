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
