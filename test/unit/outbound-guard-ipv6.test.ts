import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertOutboundUrl, isPrivateAddress } from '../../src/platform/outbound-http';

describe('outbound address guard: IPv6 forms that reach IPv4 or private space', () => {
  const refused = [
    '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
    '64:ff9b::10.0.0.1',
    '64:ff9b::808:808', // NAT64 of a public address: refused as a form, not by what it embeds
    '64:ff9b:1::a00:1', // local-use NAT64
    '::127.0.0.1', // IPv4-compatible
    '::7f00:1',
    '::a9fe:a9fe', // 169.254.169.254, the metadata service
    '::ffff:0:7f00:1', // IPv4-translated
    '2002:7f00:1::', // 6to4 of 127.0.0.1
    '2002:a9fe:a9fe::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    'fec0::1', // site-local
    'fed0:1::1',
    '::ffff:7f00:1', // IPv4-mapped, hex spelling
    '0:0:0:0:0:ffff:a00:1',
  ];
  for (const address of refused) {
    it(`refuses ${address}`, () => {
      assert.equal(isPrivateAddress(address), true);
      assert.throws(() => assertOutboundUrl(`https://[${address}]/hook`, { allowPrivate: false, requireHttps: true }), (e: any) => e.code === 'url_not_allowed');
    });
  }

  it('still allows public addresses in both families', () => {
    for (const address of ['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2a00:1450:4001:80b::200e']) {
      assert.equal(isPrivateAddress(address), false, address);
    }
  });
});
