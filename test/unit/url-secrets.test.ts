import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { looksRandom, secretLookingQueryParam } from '../../src/domain/url-secrets';

describe('secret-looking query parameters (issue 28 #12)', () => {
  it('finds credentials by the parameter name, word by word', () => {
    for (const name of ['api_key', 'apikey', 'apiKey', 'key', 'token', 'access_token', 'accessToken', 'X-Auth-Token', 'client_secret', 'password', 'pwd', 'sig', 'signature', 'auth', 'session_id', 'jwt']) {
      assert.deepEqual(secretLookingQueryParam(`https://tools.example.com/q?${encodeURIComponent(name)}=x`), { name, reason: 'name' }, name);
    }
  });

  it('finds a long random-looking value under any name', () => {
    assert.deepEqual(secretLookingQueryParam('https://tools.example.com/q?ref=sk_9fQ2xL7pRt4ZbW8mNc3V'), { name: 'ref', reason: 'value' });
    assert.ok(looksRandom('ghp_16C7e42F292c6912E7710c838347Ae178B4a'));
  });

  it('leaves ordinary parameters alone', () => {
    for (const url of [
      'https://tools.example.com/q',
      'https://tools.example.com/q?region=eu&format=json&version=2',
      'https://tools.example.com/q?monkey=1&keyboard=uk&tokenizer=basic',
      'https://tools.example.com/q?lang=en-US&limit=100&category=shipping-and-returns',
      'https://tools.example.com/q?date=2026-11-27T10:00:00Z',
    ]) assert.equal(secretLookingQueryParam(url), null, url);
  });
});
