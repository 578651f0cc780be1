// The answer as a table: headers sort (a button each, so the keyboard sorts too), numbers align
// right, NULL is the word NULL in its own style. Each cell keeps the answer's value in data-value
// (JSON), so what is shown can be checked against the API.

import { h, clear } from './dom.js';
import { formatNumber, formatTime } from './format.js';

export function drawTable(container, answer) {
  clear(container);
  if (answer.rows.length === 0) {
    container.append(h('p', { class: 'empty', text: 'The answer has no rows.' }));
    return;
  }
  const state = { column: -1, desc: false };
  const numeric = answer.columns.map((c) => c.type === 'number');
  const table = h('table', { class: 'answer' });
  const headRow = h('tr');
  const body = h('tbody');
  const fillBody = () => {
    const order = answer.rows.map((_, i) => i);
    if (state.column >= 0) order.sort((a, b) => compare(answer.rows[a][state.column], answer.rows[b][state.column], state.desc) || a - b);
    body.replaceChildren(...order.map((index) => h('tr', { 'data-row': index }, answer.rows[index].map((value, c) => cell(value, numeric[c], answer.columns[c].type)))));
  };
  answer.columns.forEach((column, index) => {
    const button = h('button', { type: 'button', class: 'sort', text: column.name });
    const th = h('th', { scope: 'col', class: numeric[index] ? 'num' : '', 'aria-sort': 'none' }, [button]);
    button.addEventListener('click', () => {
      state.desc = state.column === index ? !state.desc : false;
      state.column = index;
      for (const other of headRow.children) other.setAttribute('aria-sort', 'none');
      th.setAttribute('aria-sort', state.desc ? 'descending' : 'ascending');
      fillBody();
    });
    headRow.append(th);
  });
  table.append(h('thead', {}, [headRow]), body);
  fillBody();
  container.append(table);
}

function cell(value, numeric, type) {
  const raw = JSON.stringify(value);
  if (value === null) return h('td', { class: numeric ? 'num null' : 'null', 'data-value': raw, text: 'NULL' });
  if (numeric) return h('td', { class: 'num', 'data-value': raw, title: String(value), text: formatNumber(value) });
  return h('td', { 'data-value': raw, text: type === 'time' ? formatTime(value) : String(value) });
}

// NULLs last in both directions, numbers as numbers, the rest as text.
function compare(a, b, desc) {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  const order = typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
  return desc ? -order : order;
}
