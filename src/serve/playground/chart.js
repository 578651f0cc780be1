// The chart, chosen from the answer's shape and drawn as SVG by hand. Every row of the answer gets
// exactly one element of class "mark" with data-row (its index in the answer), so the marks can be
// counted against the rows:
//   a time column             → one line per category (the other dimensions), a point per row;
//   no time, one category     → bars;
//   no time, two or more      → grouped bars (groups: the first dimension);
//   no dimension              → the numbers themselves, one tile row per answer row.

import { h, s, clear } from './dom.js';
import { formatNumber, formatTime } from './format.js';

const WIDTH = 760;
const HEIGHT = 320;
const MARGIN = { top: 14, right: 44, bottom: 46, left: 70 };
const SERIES_CLASSES = 8;
export const MAX_MARKS = 5000;

// Which columns are measures, time buckets and categories.
export function shapeOf(answer, query) {
  const measures = new Set(Array.isArray(query.measures) ? query.measures : []);
  const times = new Set();
  for (const t of Array.isArray(query.time_dimensions) ? query.time_dimensions : []) {
    if (t && t.dimension) times.add(t.grain ? `${t.dimension}.${t.grain}` : t.dimension);
  }
  const shape = { measures: [], times: [], categories: [] };
  answer.columns.forEach((column, index) => {
    if (measures.has(column.name)) shape.measures.push(index);
    else if (times.has(column.name) || column.type === 'time') shape.times.push(index);
    else shape.categories.push(index);
  });
  return shape;
}

export function chartKind(shape) {
  if (shape.measures.length === 0) return 'none';
  if (shape.times.length > 0) return 'line';
  if (shape.categories.length === 0) return 'tiles';
  return shape.categories.length === 1 ? 'bars' : 'grouped';
}

export function drawChart(container, legend, answer, query, measurePick) {
  clear(container);
  clear(legend);
  const shape = shapeOf(answer, query);
  const kind = chartKind(shape);
  container.dataset.kind = kind;
  if (kind === 'none') {
    container.append(h('p', { class: 'empty', text: 'Nothing to chart: the query has no measure.' }));
    return kind;
  }
  if (answer.rows.length === 0) {
    container.append(h('p', { class: 'empty', text: 'The answer has no rows.' }));
    return kind;
  }
  if (kind === 'tiles') {
    drawTiles(container, answer, shape);
    return kind;
  }
  if (answer.rows.length > MAX_MARKS) {
    container.append(h('p', { class: 'empty', text: `Too many rows to chart (${answer.rows.length}); see the table.` }));
    return kind;
  }
  const measure = shape.measures[Math.min(measurePick || 0, shape.measures.length - 1)];
  const svg = s('svg', { class: `chart-svg chart-${kind}`, viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img',
    'aria-label': `${kind === 'line' ? 'Line' : 'Bar'} chart of ${answer.columns[measure].name}` });
  const series = kind === 'line' ? drawLines(svg, answer, shape, measure) : drawBars(svg, answer, shape, measure, kind);
  container.append(svg);
  if (series.length > 1 || kind === 'line') {
    series.forEach((name, index) => legend.append(h('li', {}, [
      h('span', { class: `swatch s${index % SERIES_CLASSES}`, 'aria-hidden': 'true' }),
      h('span', { text: name })])));
  }
  return kind;
}

function drawTiles(container, answer, shape) {
  answer.rows.forEach((row, index) => {
    container.append(h('div', { class: 'tiles mark', 'data-row': index }, shape.measures.map((column) => h('div', { class: 'tile' }, [
      h('p', { class: 'tile-label', text: answer.columns[column].name }),
      h('p', { class: row[column] === null ? 'tile-value null' : 'tile-value', text: row[column] === null ? 'NULL' : formatNumber(row[column]) }),
    ]))));
  });
}

function keyOf(row, columns) {
  return columns.length === 0 ? 'all rows' : columns.map((c) => (row[c] === null ? 'NULL' : String(row[c]))).join(' · ');
}

function numeric(value) {
  if (value === null || value === undefined || value === '') return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}

// Round tick values over [low, high].
function ticks(low, high, count = 5) {
  if (low === high) { high = low + 1; }
  const raw = (high - low) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((m) => m >= raw) || raw;
  const out = [];
  for (let v = Math.floor(low / step) * step; v <= high + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  if (out[out.length - 1] < high) out.push(out[out.length - 1] + step);
  return out;
}

function yScale(svg, values) {
  const finite = values.filter((v) => v !== null);
  const marks = ticks(Math.min(0, ...finite), Math.max(0, ...finite));
  const low = marks[0];
  const high = marks[marks.length - 1];
  const y = (v) => MARGIN.top + (HEIGHT - MARGIN.top - MARGIN.bottom) * (1 - (v - low) / (high - low || 1));
  for (const t of marks) {
    svg.append(s('line', { class: 'grid', x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(t), y2: y(t) }),
      s('text', { class: 'axis-label', x: MARGIN.left - 8, y: y(t) + 4, 'text-anchor': 'end', text: formatNumber(t, true) }));
  }
  return y;
}

function drawLines(svg, answer, shape, measure) {
  const time = shape.times[0];
  const others = [...shape.categories, ...shape.times.slice(1)];
  const points = answer.rows.map((row, index) => ({ index, row, x: Date.parse(row[time]), v: numeric(row[measure]),
    series: keyOf(row, others) }));
  const xs = points.map((p) => p.x).filter(Number.isFinite);
  const x0 = xs.length ? Math.min(...xs) : 0;
  const x1 = xs.length ? Math.max(...xs) : 1;
  const x = (v) => MARGIN.left + (WIDTH - MARGIN.left - MARGIN.right) * (x1 === x0 ? 0.5 : (v - x0) / (x1 - x0));
  const y = yScale(svg, points.map((p) => p.v));
  const base = y(0);
  const stamps = [...new Set(xs)].sort((a, b) => a - b);
  const every = Math.max(1, Math.ceil(stamps.length / 8));
  stamps.forEach((stamp, i) => {
    if (i % every !== 0) return;
    svg.append(s('text', { class: 'axis-label', x: x(stamp), y: HEIGHT - MARGIN.bottom + 18, 'text-anchor': 'middle',
      text: formatTime(answer.rows.find((r) => Date.parse(r[time]) === stamp)[time], true) }));
  });
  const names = [...new Set(points.map((p) => p.series))];
  names.forEach((name, seriesIndex) => {
    const mine = points.filter((p) => p.series === name).sort((a, b) => a.x - b.x);
    const line = mine.filter((p) => p.v !== null && Number.isFinite(p.x)).map((p) => `${x(p.x).toFixed(1)},${y(p.v).toFixed(1)}`);
    const group = s('g', { class: `series s${seriesIndex % SERIES_CLASSES}`, 'data-series': name });
    group.append(s('polyline', { class: 'line', points: line.join(' '), fill: 'none' }));
    for (const p of mine) {
      const missing = p.v === null || !Number.isFinite(p.x);
      group.append(s('circle', { class: missing ? 'mark is-null' : 'mark', r: missing ? 3 : 3.5,
        cx: Number.isFinite(p.x) ? x(p.x).toFixed(1) : MARGIN.left, cy: (missing ? base : y(p.v)).toFixed(1),
        'data-row': p.index, 'data-series': name, 'data-value': p.v === null ? 'NULL' : String(p.row[measure]) },
      [s('title', { text: `${name}: ${formatTime(p.row[time])} → ${p.v === null ? 'NULL' : formatNumber(p.row[measure])}` })]));
    }
    svg.append(group);
  });
  return names;
}

function drawBars(svg, answer, shape, measure, kind) {
  const groupColumn = shape.categories[0];
  const seriesColumns = kind === 'grouped' ? shape.categories.slice(1) : [];
  const rows = answer.rows.map((row, index) => ({ index, row, v: numeric(row[measure]),
    group: keyOf(row, [groupColumn]), series: keyOf(row, seriesColumns) }));
  const groups = [...new Set(rows.map((r) => r.group))];
  const names = [...new Set(rows.map((r) => r.series))];
  const y = yScale(svg, rows.map((r) => r.v));
  const base = y(0);
  const band = (WIDTH - MARGIN.left - MARGIN.right) / groups.length;
  const inner = band * 0.8;
  const barWidth = Math.max(1, inner / names.length);
  const every = Math.max(1, Math.ceil(groups.length / 12));
  groups.forEach((group, i) => {
    if (i % every !== 0) return;
    svg.append(s('text', { class: 'axis-label', x: MARGIN.left + band * (i + 0.5), y: HEIGHT - MARGIN.bottom + 18,
      'text-anchor': 'middle', text: group.length > 16 ? `${group.slice(0, 15)}…` : group }));
  });
  for (const r of rows) {
    const g = groups.indexOf(r.group);
    const k = names.indexOf(r.series);
    const top = r.v === null ? base : Math.min(y(r.v), base);
    const height = r.v === null ? 0 : Math.abs(y(r.v) - base);
    svg.append(s('rect', { class: `mark bar s${k % SERIES_CLASSES}${r.v === null ? ' is-null' : ''}`,
      x: (MARGIN.left + band * g + (band - inner) / 2 + barWidth * k).toFixed(1), y: top.toFixed(1),
      width: Math.max(1, barWidth - 1).toFixed(1), height: Math.max(height, r.v === null ? 1 : 0).toFixed(1),
      'data-row': r.index, 'data-series': r.series, 'data-value': r.v === null ? 'NULL' : String(r.row[measure]) },
    [s('title', { text: `${r.group}${seriesColumns.length ? ` · ${r.series}` : ''} → ${r.v === null ? 'NULL' : formatNumber(r.row[measure])}` })]));
  }
  return names;
}
