// The playground: a token, the role's model (GET /v1/meta), a query built by clicking or typed as
// JSON (kept in sync both ways), its answer as a table and a chart, how it was routed and, when it
// ran live, the rollup advisor's proposal.

import { h, byId, clear, show } from './dom.js';
import { ApiError, savedToken, saveToken, fetchMeta, runQuery, adviseRollups } from './api.js';
import { Catalogue, membersOf } from './model.js';
import { Builder } from './builder.js';
import { drawChart } from './chart.js';
import { drawTable } from './table.js';
import { drawRouting, drawAdvice } from './routing.js';
import { toSql, toCurl } from './sql.js';
import { formatMs } from './format.js';

const state = { token: '', catalogue: null, query: {}, jsonValid: true, answer: null, runQuery: null, running: false };
const editor = byId('json-editor');
const builder = new Builder((query) => {
  state.query = query;
  editor.value = JSON.stringify(query, null, 2);
  setJsonValid(true);
  builder.clearErrors();
});

function setBuilderEnabled() {
  byId('builder').disabled = !(state.catalogue && state.jsonValid);
}

function setJsonValid(valid, message) {
  state.jsonValid = valid;
  byId('json-error').textContent = valid ? '' : `Invalid JSON: ${message}. The builder waits until it parses.`;
  show(byId('json-error'), !valid);
  editor.classList.toggle('invalid', !valid);
  editor.setAttribute('aria-invalid', valid ? 'false' : 'true');
  setBuilderEnabled();
}

function notice(text, hint, kind = 'error') {
  const box = byId('notice');
  clear(box);
  if (!text) { show(box, false); return; }
  box.className = `notice ${kind}`;
  box.append(h('strong', { text }), hint ? h('span', { class: 'hint', text: ` ${hint}` }) : null);
  show(box, true);
}

// {code, message, hint} as the three parts the page shows everywhere.
function errorParts(error) {
  return [h('code', { class: 'error-code', text: error.code }), ' ', h('span', { class: 'error-message', text: error.message }),
    error.hint ? h('p', { class: 'error-hint', text: `Hint: ${error.hint}` }) : null];
}

async function connect(token) {
  notice('');
  try {
    const { json } = await fetchMeta(token);
    state.token = token;
    saveToken(token);
    state.catalogue = new Catalogue(json);
    builder.query = state.query;
    builder.setCatalogue(state.catalogue);
    const roles = state.catalogue.roles;
    byId('role-badge').textContent = roles.length === 1 ? `role: ${roles[0]}` : 'role: all roles';
    show(byId('role-badge'), true);
    byId('token-input').value = '';
    byId('token-input').placeholder = 'Connected. Paste another token to switch.';
    setBuilderEnabled();
  } catch (error) {
    state.catalogue = null;
    state.token = '';
    saveToken('');
    clear(byId('members'));
    show(byId('role-badge'), false);
    setBuilderEnabled();
    if (error instanceof ApiError && error.status === 401) {
      notice(`Token rejected (401 ${error.code}): ${error.message}.`, error.hint ? `Hint: ${error.hint}` : '');
    } else {
      notice(`Could not read the model: ${error.code}: ${error.message}.`, error.hint ? `Hint: ${error.hint}` : '');
    }
  }
}

function onJsonInput() {
  let parsed;
  try {
    parsed = JSON.parse(editor.value);
  } catch (error) {
    setJsonValid(false, error.message);
    return;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    setJsonValid(false, 'the query must be a JSON object');
    return;
  }
  state.query = parsed;
  setJsonValid(true);
  builder.clearErrors();
  if (state.catalogue) builder.render(parsed);
}

// Where an error belongs: the longest member of the query its text names, as "Order.foo" or as
// entity "Order" ... member "foo".
function memberNamedBy(error, query) {
  const text = [error.message, ...(Array.isArray(error.notes) ? error.notes : [])].join(' ');
  const names = [...membersOf(query)].sort((a, b) => b.length - a.length);
  const named = names.find((name) => text.includes(name)) || names.find((name) => {
    const parts = name.split('.');
    return parts.length > 1 && text.includes(`"${parts[0]}"`) && text.includes(`"${parts.slice(1).join('.')}"`);
  });
  if (named) return named;
  return ['timezone', 'limit'].find((key) => key in query && text.includes(key));
}

function showRunError(error, query) {
  const member = memberNamedBy(error, query);
  const target = member ? builder.markError(member) : null;
  const box = target ? h('div', { class: 'inline-error', role: 'alert' }, errorParts(error)) : byId('builder-error');
  if (target) {
    target.after(box);
    box.scrollIntoView({ block: 'nearest' });
  } else {
    clear(box).append(...errorParts(error).filter(Boolean));
    show(box, true);
  }
  if (error.status === 401) notice(`Token rejected (401): ${error.message}.`, error.hint ? `Hint: ${error.hint}` : '');
  byId('status-line').textContent = `Failed: ${error.code}${target ? ` (see ${member} in the builder)` : ''}`;
}

function clearRunError() {
  builder.clearErrors();
  show(byId('builder-error'), false);
  clear(byId('builder-error'));
  notice('');
}

async function run() {
  if (state.running) return;
  if (!state.jsonValid) { editor.focus(); return; }
  if (!state.token) { notice('Paste a token first.', 'The page reads the model with it.'); byId('token-input').focus(); return; }
  clearRunError();
  const query = state.query;
  state.running = true;
  byId('run').disabled = true;
  byId('status-line').textContent = 'Running…';
  try {
    const { json, headers } = await runQuery(state.token, query);
    state.answer = json;
    state.runQuery = query;
    byId('status-line').textContent = `${json.rows.length} row${json.rows.length === 1 ? '' : 's'} in ${formatMs(json.meta.duration_ms)}`;
    drawTable(byId('table'), json);
    drawAnswerChart();
    drawRouting(byId('routing'), json.meta, headers.get('X-Strata-Cache'));
    if (json.meta && json.meta.rollup && json.meta.rollup.used) {
      clear(byId('advisor')).append(h('p', { class: 'help', text: `Answered from rollup ${json.meta.rollup.used}: no advice needed.` }));
    } else {
      await advise(query);
    }
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    showRunError(error, query);
  } finally {
    state.running = false;
    byId('run').disabled = false;
  }
}

async function advise(query) {
  const box = clear(byId('advisor'));
  box.append(h('p', { class: 'help', text: 'Asking the advisor…' }));
  try {
    const { json } = await adviseRollups(state.token, query);
    drawAdvice(box, json, (yaml) => copy(yaml, 'YAML'));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 404 || error.status === 405) {
      clear(box).append(h('p', { class: 'help', text: 'This server has no rollup advisor (POST /v1/rollups/advise).' }));
    } else {
      clear(box).append(h('div', { class: 'error-box' }, errorParts(error)));
    }
  }
}

function drawAnswerChart() {
  if (!state.answer) return;
  const pick = byId('chart-measure');
  const measures = (state.runQuery.measures || []).filter((m) => state.answer.columns.some((c) => c.name === m));
  const previous = pick.value;
  pick.replaceChildren(...measures.map((m, i) => h('option', { value: String(i), text: m })));
  if (previous && Number(previous) < measures.length) pick.value = previous;
  show(byId('chart-measure-label'), measures.length > 1);
  drawChart(byId('chart'), byId('legend'), state.answer, state.runQuery, Number(pick.value || 0));
}

async function copy(text, what) {
  const status = byId('copy-status');
  const fallback = byId('copy-fallback');
  try {
    if (!navigator.clipboard || !window.isSecureContext) throw new Error('no clipboard');
    await navigator.clipboard.writeText(text);
    show(fallback, false);
    status.textContent = `${what} copied.`;
  } catch {
    const area = byId('copy-fallback-text');
    area.value = text;
    show(fallback, true);
    area.focus();
    area.select();
    status.textContent = `${what} is selected below: copy it with Ctrl+C.`;
  }
}

function wire() {
  byId('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const token = byId('token-input').value.trim();
    if (token) connect(token);
  });
  byId('token-forget').addEventListener('click', () => {
    saveToken('');
    state.token = '';
    state.catalogue = null;
    clear(byId('members'));
    show(byId('role-badge'), false);
    byId('token-input').placeholder = 'Paste a JWT (kept in this tab only)';
    setBuilderEnabled();
    notice('Token forgotten.', '', 'info');
  });
  editor.addEventListener('input', onJsonInput);
  editor.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      run();
    }
  });
  byId('run').addEventListener('click', run);
  byId('chart-measure').addEventListener('change', drawAnswerChart);
  byId('copy-json').addEventListener('click', () => copy(`${JSON.stringify(state.query, null, 2)}\n`, 'JSON'));
  byId('copy-curl').addEventListener('click', () => copy(toCurl(state.query, window.location.origin), 'curl command'));
  byId('copy-sql').addEventListener('click', () => {
    if (!state.catalogue) { notice('Paste a token first.', 'The SQL names come from the model.'); return; }
    copy(toSql(state.query, state.catalogue), 'SQL');
  });
}

wire();
editor.value = '{}';
const token = savedToken();
if (token) connect(token);
else byId('token-input').focus();
