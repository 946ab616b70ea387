import { html, raw, type Html } from '../../platform/html';

/**
 * Server-rendered SVG charts (no script, no build step, no CDN). Readable without colour alone: every series
 * has its own line pattern and marker shape, every bar its own fill pattern, each labelled in place and in a
 * legend. Each chart's numbers are the same `ChartData` rows its table and its CSV show.
 */

export type Cell = string | number | null;

export interface ChartData {
  id: string;
  title: string;
  /** The formula, printed beside the chart. */
  formula: string;
  columns: string[];
  rows: Cell[][];
  /** Per row: the period is partial (cut by the range, or today so far): drawn hatched and labelled, marked in the table and CSV. */
  partial?: boolean[];
}

/** Ink and pattern per series: a colour, a dash pattern, a marker shape, a fill pattern. */
const STYLES = [
  { colour: '#1d4ed8', dash: '', marker: 'circle', fill: 'url(#p-solid)', name: 'solid line, circles' },
  { colour: '#b45309', dash: '8 4', marker: 'square', fill: 'url(#p-hatch)', name: 'dashed line, squares' },
  { colour: '#047857', dash: '2 3', marker: 'triangle', fill: 'url(#p-dots)', name: 'dotted line, triangles' },
  { colour: '#7c3aed', dash: '12 3 2 3', marker: 'diamond', fill: 'url(#p-cross)', name: 'dash-dot line, diamonds' },
  { colour: '#475569', dash: '1 1', marker: 'circle', fill: 'url(#p-lines)', name: 'fine dots, circles' },
];

const DEFS = raw(`<defs>
<pattern id="p-solid" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#1d4ed8"/></pattern>
<pattern id="p-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fde68a"/><line x1="0" y1="0" x2="0" y2="6" stroke="#b45309" stroke-width="3"/></pattern>
<pattern id="p-dots" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#d1fae5"/><circle cx="3" cy="3" r="1.6" fill="#047857"/></pattern>
<pattern id="p-lines" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#f1f5f9"/><line x1="0" y1="3" x2="6" y2="3" stroke="#475569" stroke-width="1.2"/></pattern>
<pattern id="p-partial" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="8" height="8" fill="#f8fafc"/><line x1="0" y1="0" x2="0" y2="8" stroke="#cbd5e1" stroke-width="2"/></pattern>
<pattern id="p-cross" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="#ede9fe"/><path d="M0 0L8 8M8 0L0 8" stroke="#7c3aed" stroke-width="1.2"/></pattern>
</defs>`);

const fmt = (v: number, unit: Unit) => (unit === 'percent' ? `${Math.round(v * 1000) / 10} %` : unit === 'ms' ? duration(v) : String(Math.round(v * 100) / 100));
export type Unit = 'percent' | 'count' | 'ms';

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 6000) / 10} min`;
  if (ms < 86_400_000) return `${Math.round(ms / 360_000) / 10} h`;
  return `${Math.round(ms / 8_640_000) / 10} d`;
}

function marker(shape: string, x: number, y: number, colour: string): string {
  const s = 3.5;
  if (shape === 'circle') return `<circle cx="${x}" cy="${y}" r="${s}" fill="${colour}"/>`;
  if (shape === 'square') return `<rect x="${x - s}" y="${y - s}" width="${2 * s}" height="${2 * s}" fill="${colour}"/>`;
  if (shape === 'triangle') return `<path d="M${x} ${y - s - 1}L${x + s + 1} ${y + s}L${x - s - 1} ${y + s}Z" fill="${colour}"/>`;
  return `<path d="M${x} ${y - s - 1}L${x + s + 1} ${y}L${x} ${y + s + 1}L${x - s - 1} ${y}Z" fill="${colour}"/>`;
}

/** A partial period's point: the series' marker shape, outlined only. */
function hollow(shape: string, x: number, y: number, colour: string): string {
  return marker(shape, x, y, colour).replace(/fill="[^"]*"/, `fill="#fff" stroke="${colour}" stroke-width="1.5"`);
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** Lines over periods: `data.rows` are [period, value per series…]; nulls break the line. */
export function lineChart(data: ChartData, opts: { unit: Unit; max?: number }): Html {
  const W = 640, H = 240, L = 52, R = 130, T = 14, B = 34;
  const series = data.columns.slice(1);
  const values = data.rows.flatMap((r) => r.slice(1).filter((v): v is number => typeof v === 'number'));
  const max = opts.max ?? Math.max(1, ...values);
  const n = Math.max(1, data.rows.length - 1);
  const x = (i: number) => L + ((W - L - R) * i) / n;
  const y = (v: number) => T + (H - T - B) * (1 - v / max);
  let svg = '';
  for (let k = 0; k <= 4; k++) {
    const v = (max * k) / 4;
    svg += `<line x1="${L}" x2="${W - R}" y1="${y(v)}" y2="${y(v)}" stroke="#e4e7eb"/><text x="${L - 6}" y="${y(v) + 4}" text-anchor="end" class="tick">${esc(fmt(v, opts.unit))}</text>`;
  }
  // Partial periods (today so far): a hatched band behind, labelled, so a low value there is not read as a drop.
  const partial = (i: number) => data.partial?.[i] === true;
  const half = (W - L - R) / n / 2;
  // One band per run of partial periods, labelled in words (not colour alone).
  for (let i = 0; i < data.rows.length; i++) {
    if (!partial(i)) continue;
    let j = i;
    while (j + 1 < data.rows.length && partial(j + 1)) j++;
    const x0 = Math.max(L, x(i) - half), x1 = Math.min(W - R, x(j) + half);
    svg += `<rect class="partial" x="${x0.toFixed(1)}" y="${T}" width="${Math.max(6, x1 - x0).toFixed(1)}" height="${H - T - B}" fill="url(#p-partial)" stroke="#94a3b8" stroke-dasharray="3 3"/>`;
    svg += `<text x="${x1.toFixed(1)}" y="${T - 3}" text-anchor="end" class="tick partial-label">not final yet</text>`;
    i = j;
  }
  const every = Math.max(1, Math.ceil(data.rows.length / 8));
  data.rows.forEach((r, i) => {
    if (i % every === 0 || i === data.rows.length - 1) svg += `<text x="${x(i)}" y="${H - B + 16}" text-anchor="middle" class="tick">${esc(String(r[0]).slice(5))}</text>`;
  });
  const ends: Array<{ y: number; text: string }> = [];
  series.forEach((name, s) => {
    const st = STYLES[s % STYLES.length]!;
    let path = '';
    let faint = '';
    let pen = false;
    let solid = false;
    let last: { i: number; v: number } | undefined;
    data.rows.forEach((r, i) => {
      const v = r[s + 1];
      if (typeof v !== 'number') {
        pen = false;
        solid = false;
        last = undefined;
        return;
      }
      const at = `${x(i).toFixed(1)} ${y(v).toFixed(1)}`;
      // Into or out of a partial period: a faint segment, and a hollow marker on the partial point.
      if (pen && last && (partial(i) || partial(last.i))) {
        faint += `M${x(last.i).toFixed(1)} ${y(last.v).toFixed(1)}L${at}`;
        solid = false;
      } else {
        path += `${solid ? 'L' : 'M'}${at}`;
        solid = true;
      }
      pen = true;
      svg += partial(i) ? hollow(st.marker, x(i), y(v), st.colour) : marker(st.marker, x(i), y(v), st.colour);
      last = { i, v };
    });
    if (path) svg += `<path d="${path}" fill="none" stroke="${st.colour}" stroke-width="2" stroke-dasharray="${st.dash}"/>`;
    if (faint) svg += `<path class="partial-line" d="${faint}" fill="none" stroke="${st.colour}" stroke-opacity="0.45" stroke-width="2" stroke-dasharray="${st.dash || '4 3'}"/>`;
    // The series named at its last point, so it is read without the legend's colours.
    if (last) ends.push({ y: y(last.v) + 4, text: `${name.replace(/ %$/, '')} ${fmt(last.v, opts.unit)}` });
  });
  // End labels pushed apart so that lines ending together stay readable, then lifted as one stack where
  // it would reach below the plot (into the row of dates).
  ends.sort((a, b) => a.y - b.y).forEach((e, i, all) => {
    if (i > 0 && e.y - all[i - 1]!.y < 13) e.y = all[i - 1]!.y + 13;
  });
  const overflow = Math.max(0, (ends.at(-1)?.y ?? 0) - (H - B));
  for (const e of ends) svg += `<text x="${W - R + 8}" y="${(e.y - overflow).toFixed(1)}" class="label">${esc(e.text)}</text>`;
  return frame(data, svg, W, H, series.map((name, s) => ({ name, style: STYLES[s % STYLES.length]!, line: true })));
}

/** Horizontal bars: `data.rows` are [label, value per series…] (several series: bars side by side). */
export function barChart(data: ChartData, opts: { unit: Unit }): Html {
  const series = data.columns.slice(1);
  const barH = 14, gap = 8, L = 170, R = 90, W = 640;
  const groupH = series.length * barH + gap;
  const H = Math.max(60, data.rows.length * groupH + 20);
  const values = data.rows.flatMap((r) => r.slice(1).filter((v): v is number => typeof v === 'number'));
  const max = Math.max(1, ...values);
  let svg = '';
  data.rows.forEach((r, i) => {
    const top = 10 + i * groupH;
    svg += `<text x="${L - 8}" y="${top + (series.length * barH) / 2 + 4}" text-anchor="end" class="label">${esc(String(r[0]).slice(0, 26))}</text>`;
    series.forEach((_, s) => {
      const v = r[s + 1];
      const st = STYLES[s % STYLES.length]!;
      const w = typeof v === 'number' ? ((W - L - R) * v) / max : 0;
      svg += `<rect x="${L}" y="${top + s * barH}" width="${Math.max(w, typeof v === 'number' && v > 0 ? 1 : 0).toFixed(1)}" height="${barH - 2}" fill="${st.fill}" stroke="${st.colour}"/>`;
      svg += `<text x="${L + w + 6}" y="${top + s * barH + barH - 4}" class="label">${typeof v === 'number' ? esc(fmt(v, opts.unit)) : '—'}${series.length > 1 ? ` ${esc(series[s]!)}` : ''}</text>`;
    });
  });
  if (data.rows.length === 0) svg += `<text x="${W / 2}" y="34" text-anchor="middle" class="label">Nothing in this period</text>`;
  return frame(data, svg, W, H, series.length > 1 ? series.map((name, s) => ({ name, style: STYLES[s % STYLES.length]!, line: false })) : []);
}

function frame(data: ChartData, body: string, W: number, H: number, legend: Array<{ name: string; style: (typeof STYLES)[number]; line: boolean }>): Html {
  const desc = `${data.title}. ${legend.map((l) => `${l.name}: ${l.style.name}`).join('; ')}`;
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${data.id}-title" xmlns="http://www.w3.org/2000/svg">
<title id="${data.id}-title">${desc}</title>${DEFS}${raw(body)}</svg>
${legend.length ? html`<ul class="legend">${legend.map((l) => html`<li>${raw(l.line
    ? `<svg width="34" height="12" aria-hidden="true"><line x1="1" y1="6" x2="33" y2="6" stroke="${l.style.colour}" stroke-width="2" stroke-dasharray="${l.style.dash}"/>${marker(l.style.marker, 17, 6, l.style.colour)}</svg>`
    : `<svg width="22" height="12" aria-hidden="true">${DEFS.value}<rect x="1" y="1" width="20" height="10" fill="${l.style.fill}" stroke="${l.style.colour}"/></svg>`)} ${l.name} <span class="muted">(${l.style.name})</span></li>`)}</ul>` : ''}`;
}

/** The chart's numbers as a table. */
export function chartTable(data: ChartData): Html {
  return html`<table class="list numbers"><thead><tr>${data.columns.map((c) => html`<th>${c}</th>`)}</tr></thead>
<tbody>${data.rows.map((r, i) => html`<tr${data.partial?.[i] ? raw(' class="partial"') : ''}>${r.map((v, k) => html`<td>${v === null ? '—' : v}${k === 0 && data.partial?.[i] ? ' (partial)' : ''}</td>`)}</tr>`)}</tbody></table>`;
}

/** The chart's numbers as CSV (RFC 4180 quoting; a leading =,+,-,@ is quoted with ' so spreadsheets do not run it). */
export function chartCsv(data: ChartData): string {
  const cell = (v: Cell) => {
    if (v === null) return '';
    let s = String(v);
    if (typeof v === 'string' && /^[=+\-@]/.test(s)) s = `'${s}`;
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  // A period-by-period chart says which periods are partial (today so far) in a last column.
  const rows = data.partial ? [[...data.columns, 'Partial'], ...data.rows.map((r, i) => [...r, data.partial![i] ? 'yes' : 'no'])] : [data.columns, ...data.rows];
  return rows.map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n';
}

/** A chart with its formula beside it and its numbers one click away (table, CSV). */
export function chartFigure(data: ChartData, chart: Html, csvHref: string): Html {
  return html`<figure class="analytics-chart" id="chart-${data.id}">
<figcaption><h2>${data.title}</h2><p class="formula">${data.formula}</p></figcaption>
${chart}
<details><summary>Numbers</summary>${chartTable(data)}</details>
<p class="chart-links"><a href="${csvHref}" download>Download CSV</a></p>
</figure>`;
}
