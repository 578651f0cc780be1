// How values are written in the table and the chart.

const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 });
const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });

export function formatNumber(value, compact = false) {
  const number = Number(value);
  if (value === null || value === '' || !Number.isFinite(number)) return String(value);
  return compact ? COMPACT.format(number) : NUMBER.format(number);
}

// "2026-03-01T00:00:00Z" → "2026-03-01" when at midnight, else date and time as written.
export function formatTime(value, short = false) {
  if (typeof value !== 'string') return String(value);
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/.exec(value);
  if (!match) return value;
  if (match[2] === '00:00' && (!match[3] || /^:00(\.0+)?$/.test(match[3]))) return match[1];
  return short ? `${match[1]} ${match[2]}` : value;
}

export function formatMs(ms) {
  const number = Number(ms);
  return Number.isFinite(number) ? `${number < 10 ? number.toFixed(1) : Math.round(number)} ms` : String(ms);
}
