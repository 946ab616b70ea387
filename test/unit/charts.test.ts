import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lineChart } from '../../src/console/views/charts';

describe('lineChart end labels', () => {
  it('stay inside the plot, above the row of dates, when several lines end at zero', () => {
    const days = Array.from({ length: 15 }, (_, i) => `2026-11-${String(14 + i).padStart(2, '0')}`);
    const chart = lineChart({
      id: 'rates', title: 'Resolution and handoff rate (%)', formula: '',
      columns: ['period', 'Resolution rate %', 'Handoff rate %', 'Automation rate %'],
      rows: days.map((d, i) => [d, i === 14 ? 0 : 75, i === 14 ? 30 : 35, i === 14 ? 0 : 50]),
      partial: days.map((_, i) => i === 14),
    }, { unit: 'percent', max: 100 }).value;
    const labelYs = [...chart.matchAll(/<text x="[\d.]+" y="([\d.]+)" class="label">/g)].map((m) => Number(m[1]));
    const dateY = Number(/<text x="[\d.]+" y="([\d.]+)" text-anchor="middle" class="tick">11-28<\/text>/.exec(chart)![1]);
    assert.equal(labelYs.length, 3, chart.slice(0, 200));
    for (const y of labelYs) assert.ok(y <= dateY - 12, `an end label at ${y} reaches the dates' row at ${dateY}`);
    const sorted = [...labelYs].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i]! - sorted[i - 1]! >= 13, 'labels do not overlap each other');
  });
});
