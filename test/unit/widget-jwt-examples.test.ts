import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { nodeJwtExample, pythonJwtExample, widgetSnippet } from '../../src/console/widget-snippet';
import { verifyIdentityJwt } from '../../src/widget/identity-jwt';

const run = promisify(execFile);
const KID = 'idk_example123';
const SECRET = 'isk_example-secret-value';
const env = { ...process.env, CONVERSE_IDENTITY_SECRET: SECRET };

/** What the service makes of a token the example printed. */
const verify = (token: string) => verifyIdentityJwt({ token: token.trim(), secretOf: async (kid) => (kid === KID ? SECRET : undefined) });

describe("the console's server-side JWT examples", () => {
  it('the Node example (node:crypto only) signs a JWT the service verifies', async () => {
    const code = `${nodeJwtExample(KID)}\nprocess.stdout.write(visitorJwt({ id: 'cus_42', email: 'ada@example.com', name: 'Ada' }));`;
    const { stdout } = await run(process.execPath, ['-e', code], { env });
    assert.deepEqual(await verify(stdout), { id: 'cus_42', email: 'ada@example.com', name: 'Ada', phone: undefined });
  });

  it('the Python example (standard library only) signs a JWT the service verifies', async () => {
    const code = `${pythonJwtExample(KID)}\nprint(visitor_jwt("cus_42", "ada@example.com", "Ada"))`;
    const { stdout } = await run('python3', ['-I', '-c', code], { env });
    assert.deepEqual(await verify(stdout), { id: 'cus_42', email: 'ada@example.com', name: 'Ada', phone: undefined });
  });

  it('the snippet is one tag, with integrity and crossorigin only when the hash is known', () => {
    assert.equal(widgetSnippet({ baseUrl: 'https://converse.example/', key: 'pk_test_abc' }), '<script src="https://converse.example/widget.js" data-key="pk_test_abc" async></script>');
    assert.equal(
      widgetSnippet({ baseUrl: 'https://converse.example', key: 'pk_live_abc', integrity: 'sha384-xyz' }),
      '<script src="https://converse.example/widget.js" data-key="pk_live_abc" integrity="sha384-xyz" crossorigin="anonymous" async></script>',
    );
  });
});
