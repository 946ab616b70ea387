import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitLogisticRegression } from '../../bench/logistic';

/** Rows drawn from a known logistic model (a fixed-seed generator, so the test is the same every run). */
function sample(beta: number[], n: number) {
  let seed = 11;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const rows = Array.from({ length: n }, () => [1, ...beta.slice(1).map(() => rnd() * 4 - 2)]);
  const ys = rows.map((x) => (rnd() < 1 / (1 + Math.exp(-x.reduce((a, v, i) => a + v * beta[i]!, 0))) ? 1 : 0));
  return { rows, ys };
}

describe('the benches’ logistic regression (Newton, Cholesky steps)', () => {
  it('recovers the coefficients a sample was drawn from', () => {
    const beta = [-0.5, 1.5, -2, 0];
    const { rows, ys } = sample(beta, 20_000);
    const fit = fitLogisticRegression(rows, ys);
    fit.forEach((b, i) => assert.ok(Math.abs(b - beta[i]!) < 0.1, `β${i} ${b} vs ${beta[i]}`));
  });

  it('shrinks penalised columns only, and a row weight counts like repeating the row', () => {
    const { rows, ys } = sample([1, 2], 2000);
    const free = fitLogisticRegression(rows, ys);
    const shrunk = fitLogisticRegression(rows, ys, { penalty: [0, 500] });
    assert.ok(Math.abs(shrunk[1]!) < Math.abs(free[1]!) / 2, `${shrunk[1]} vs ${free[1]}`);
    const doubled = fitLogisticRegression([...rows, ...rows.slice(0, 100)], [...ys, ...ys.slice(0, 100)]);
    const weighted = fitLogisticRegression(rows, ys, { weights: rows.map((_, i) => (i < 100 ? 2 : 1)) });
    doubled.forEach((b, i) => assert.ok(Math.abs(b - weighted[i]!) < 1e-9, `β${i} ${b} vs ${weighted[i]}`));
  });
});
