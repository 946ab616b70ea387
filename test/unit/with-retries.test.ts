import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { withRetries } from '../../src/db/with-retries';

const settle = () => new Promise((r) => setImmediate(r));

describe('withRetries (the receipt listener and the batch rounds)', () => {
  it('tries again after firstDelayMs, then doubling, and answers the first success', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const calls: number[] = [];
      let now = 0;
      const done = withRetries(
        async () => {
          calls.push(now);
          if (calls.length < 3) throw new Error(`failure ${calls.length}`);
          return 'stored';
        },
        { tries: 4, firstDelayMs: 500 },
      );
      // [ms to advance, calls made by then]: 500 ms after the first failure, 1,000 ms after the second.
      for (const [step, callsBy] of [[499, 1], [1, 2], [999, 2], [1, 3]] as const) {
        await settle();
        now += step;
        mock.timers.tick(step);
        await settle();
        assert.equal(calls.length, callsBy, `calls by ${now} ms`);
      }
      assert.equal(await done, 'stored');
      assert.deepEqual(calls, [0, 500, 1500]);
    } finally {
      mock.timers.reset();
    }
  });

  it('throws the last failure once the tries are used up', async () => {
    let calls = 0;
    await assert.rejects(
      withRetries(
        async () => {
          throw new Error(`failure ${++calls}`);
        },
        { tries: 3, firstDelayMs: 1 },
      ),
      /failure 3/,
    );
    assert.equal(calls, 3);
  });
});
