import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runSchemathesis, startFuzzTarget, type FuzzTarget } from '../../scripts/fuzz';

/**
 * A short Schemathesis run (every check on, a few examples per operation, fixed seed) against the real app
 * with a test key: the OpenAPI document and the API agree. `npm run fuzz` runs the long version.
 */
let target: FuzzTarget;
before(async () => {
  target = await startFuzzTarget();
});
after(async () => {
  await target?.close();
});

describe('fuzzing against /v1/openapi.json', () => {
  it('finds no failure in a short run', { timeout: 120_000 }, async () => {
    const code = await runSchemathesis(target, ['--max-examples', '3', '--seed', '1', '--no-color', '--max-time', '30', '--generation-database', 'none']);
    assert.equal(code, 0, 'Schemathesis reported failures (see its output above)');
  });
});
