import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decideLinkLanding } from '../../src/links/link-landing';

describe('short link landing (issue 28 #10)', () => {
  const own = 'converse.example.com';
  const decide = (livemode: boolean, url: string, verifiedDomains: string[] = []) => decideLinkLanding({ livemode, url, verifiedDomains, ownHost: own });

  it('shows every off-platform destination of a test-mode link first, even on a verified domain', () => {
    assert.equal(decide(false, 'https://phish.example/login'), 'interstitial');
    assert.equal(decide(false, 'https://help.acme.example/x', ['acme.example']), 'interstitial');
  });

  it('redirects a live link only to the account\'s verified domains (and their subdomains)', () => {
    assert.equal(decide(true, 'https://phish.example/login'), 'interstitial');
    assert.equal(decide(true, 'https://help.acme.example/x', ['acme.example']), 'redirect');
    assert.equal(decide(true, 'https://ACME.example./x', ['acme.example']), 'redirect');
    assert.equal(decide(true, 'https://evilacme.example/x', ['acme.example']), 'interstitial', 'a suffix is not a subdomain');
    assert.equal(decide(true, 'https://acme.example.evil.test/x', ['acme.example']), 'interstitial');
  });

  it('redirects to the service\'s own pages (citation pages) in both modes', () => {
    assert.equal(decide(false, `https://${own}/c/abc`), 'redirect');
    assert.equal(decide(true, `https://${own}/c/abc`), 'redirect');
    assert.equal(decide(true, 'not a url'), 'interstitial');
  });
});
