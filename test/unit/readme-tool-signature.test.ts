import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { signatureHeader, verifySignatureHeader } from '../../src/domain/signature';

/** The shell lines of README "Tools" that compute a signature, run as written. */
function readmeSignatureCommand(): string {
  const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Tools'), readme.indexOf('## Layout'));
  const line = section.split('\n').find((l) => l.startsWith('SIG=$('));
  assert.ok(line, 'README "Tools" computes SIG');
  return line.slice('SIG='.length);
}

describe('README "Tools": the signature example', () => {
  it('computes with openssl the v1 the service sends, and the service verifies a header built with it', () => {
    const secret = 'whsec_readme_example_secret';
    const body = JSON.stringify({ tool: 'lookup_order', arguments: { order_number: 'A123456' }, conversation_id: 'cnv_1', run_id: 'run_1' });
    const t = Math.floor(Date.now() / 1000);
    const sig = execFileSync('bash', ['-c', `printf '%s' ${readmeSignatureCommand()}`], { env: { ...process.env, SECRET: secret, BODY: body, T: String(t) } }).toString().trim();
    assert.equal(`t=${t},v1=${sig}`, signatureHeader(secret, body, t));
    assert.ok(verifySignatureHeader(secret, Buffer.from(body), `t=${t},v1=${sig}`));
  });
});
