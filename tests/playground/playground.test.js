// The playground page (src/serve/playground/) in Debian's Chromium against a real `strata serve`
// on the example shop: a query built by clicking equals POST /v1/query's answer, one chart mark
// per row, the routing panel, the advisor's rollup written into the model, built and then
// answering, roles, a rejected token, markup shown as text, keyboard use, and what leaves the
// page (no request off 127.0.0.1, the token in no URL and no log line, no console error).

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MARKUP_SEGMENT, Server, buildRollup, launchBrowser, makeProject, openPage, psql, removeProject, screenshot, token } from './harness.js';

let project;
let server;
let browser;
const records = [];
const tokens = new Set();

function tokenFor(role) {
  const value = token(role);
  tokens.add(value);
  return value;
}

// The month `back` months before the current one, as YYYY-MM-01 (UTC).
function monthStart(back) {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString().slice(0, 10);
}

async function open(options) {
  const opened = await openPage(browser, options);
  records.push(opened.record);
  return opened;
}

async function connect(page, role) {
  await page.goto(`${server.origin}/`);
  await page.fill('#token-input', tokenFor(role));
  await page.click('#token-form button[type=submit]');
  await page.waitForSelector('#members .entity');
}

function member(page, name) {
  return page.locator(`#members input[data-member="${name}"]`);
}

async function runAndWait(page, trigger) {
  await page.evaluate(() => { document.getElementById('status-line').textContent = ''; });
  await trigger();
  await page.waitForFunction(() => /rows? in|Failed/.test(document.getElementById('status-line').textContent));
  return page.textContent('#status-line');
}

async function tableRows(page) {
  return page.$$eval('#table tbody tr', (rows) => rows.map((row) => [...row.children].map((cell) => JSON.parse(cell.dataset.value))));
}

async function editorQuery(page) {
  return JSON.parse(await page.inputValue('#json-editor'));
}

// Nothing sticks out of the window's width (the table scrolls inside its own box).
async function assertFits(page) {
  const wide = await page.evaluate(() => [...document.querySelectorAll('body *')]
    .filter((node) => node.getBoundingClientRect().right > window.innerWidth + 1 && !node.closest('.table-wrap'))
    .map((node) => `${node.tagName}#${node.id}.${node.className}`).slice(0, 5));
  assert.deepEqual(wide, [], 'no element wider than the window');
}

// No console message of type error, except the listed load failures a test provoked on purpose.
function assertQuiet(record, allowed = []) {
  const errors = record.console.filter((m) => m.type === 'error' && !allowed.some((re) => re.test(m.text)));
  assert.deepEqual(errors, [], 'console errors');
  assert.deepEqual(record.errors, [], 'page errors');
  assert.deepEqual(record.dialogs, [], 'dialogs');
}

before(async () => {
  project = makeProject();
  server = await new Server(project).started();
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (project && !process.env.PLAYGROUND_KEEP) removeProject(project);
});

describe('playground', () => {
  it('serves the page with its CSP and no inline script or style', async () => {
    const response = await fetch(`${server.origin}/`);
    assert.equal(response.status, 200);
    const csp = response.headers.get('content-security-policy') || '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    const html = await response.text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/i, 'inline <script>');
    assert.doesNotMatch(html, /<style|\sstyle=/i, 'inline style');
    const folder = path.join(import.meta.dirname, '..', '..', 'src', 'serve', 'playground');
    for (const file of fs.readdirSync(folder).filter((name) => name !== 'README.md')) {
      const asset = await fetch(`${server.origin}/playground/${file}`);
      assert.equal(asset.status, 200, file);
      const text = await asset.text();
      assert.doesNotMatch(text, /\binnerHTML\b|\bouterHTML\b|insertAdjacentHTML|\beval\(|new Function/, file);
    }
  });

  it('builds a query by clicking; table, chart and routing match the API (rollup)', async () => {
    const { page, record } = await open();
    await connect(page, 'admin');
    await member(page, 'Order.revenue').check();
    await member(page, 'Order.status').check();
    await page.selectOption('#time-dimension', 'Order.order_date');
    await page.selectOption('#time-grain', 'month');
    await page.fill('#time-from', monthStart(6));
    await page.fill('#time-to', monthStart(0));
    const query = await editorQuery(page);
    assert.deepEqual(query, { measures: ['Order.revenue'], dimensions: ['Order.status'],
      time_dimensions: [{ dimension: 'Order.order_date', grain: 'month', range: [monthStart(6), monthStart(0)] }] });
    assert.match(await runAndWait(page, () => page.click('#run')), /rows? in/);
    const api = await server.api('/v1/query', 'admin', query);
    assert.equal(api.status, 200);
    assert.equal(api.json.meta.rollup.used, 'monthly_order_summary');
    assert.deepEqual(await tableRows(page), api.json.rows);
    assert.equal(api.json.rows.length, 24);
    assert.equal(await page.getAttribute('#chart', 'data-kind'), 'line');
    assert.equal(await page.locator('#chart .mark').count(), api.json.rows.length);
    assert.equal(await page.locator('#chart polyline').count(), 4, 'one line per status');
    assert.equal(await page.getAttribute('#routing .facts', 'data-used'), 'monthly_order_summary');
    assert.match(await page.textContent('#routing'), /Cache(hit|miss|bypass|off)/);
    assert.match(await page.textContent('#advisor'), /no advice needed/);
    await screenshot(page, '01-rollup-query');
    // Sorting by a header orders the rows by that column; numbers are right-aligned.
    await page.click('#table th:nth-child(3) button');
    const sorted = (await tableRows(page)).map((row) => row[2]);
    assert.deepEqual(sorted, [...sorted].sort((a, b) => a - b));
    assert.equal(await page.locator('#table td.num').count(), api.json.rows.length);
    assertQuiet(record);
  });

  it('charts one category as bars and no dimension as tiles, a mark per row', async () => {
    const { page, record } = await open();
    await connect(page, 'admin');
    for (const [query, kind] of [[{ measures: ['Order.order_count'], dimensions: ['Order.status'] }, 'bars'],
      [{ measures: ['Order.order_count'], dimensions: ['Order.status', 'Customer.segment'] }, 'grouped'],
      [{ measures: ['Order.order_count', 'Order.revenue'] }, 'tiles'],
      [{ measures: ['Customer.customer_count'], time_dimensions: [{ dimension: 'Customer.signup_date', grain: 'year' }] }, 'line']]) {
      await page.fill('#json-editor', JSON.stringify(query));
      await runAndWait(page, () => page.click('#run'));
      const api = await server.api('/v1/query', 'admin', query);
      assert.equal(await page.getAttribute('#chart', 'data-kind'), kind);
      assert.equal(await page.locator('#chart .mark').count(), api.json.rows.length, kind);
      assert.deepEqual(await tableRows(page), api.json.rows);
      await screenshot(page, `02-chart-${kind}`);
    }
    // The last answer has a NULL signup year: the word NULL in its own style, and still a mark.
    assert.deepEqual(await page.$$eval('#table td.null', (cells) => cells.map((cell) => cell.textContent)), ['NULL']);
    assert.equal(await page.locator('#chart .mark.is-null').count(), 1);
    assertQuiet(record);
  });

  it('keeps the JSON and the builder in sync both ways; invalid JSON keeps its text', async () => {
    const { page, record } = await open();
    await connect(page, 'admin');
    await page.fill('#json-editor', '{"measures": ["Order.order_count"], "filters": [{"member": "Order.status", "op": "equals", "values": ["paid"]}], "limit": 5}');
    assert.equal(await member(page, 'Order.order_count').isChecked(), true);
    assert.equal(await page.inputValue('#filter-values-0'), 'paid');
    assert.equal(await page.inputValue('#limit-input'), '5');
    await page.selectOption('#filter-op-0', 'not_equals');
    assert.equal((await editorQuery(page)).filters[0].op, 'not_equals');
    const broken = '{"measures": ["Order.order_count",';
    await page.fill('#json-editor', broken);
    assert.equal(await page.isVisible('#json-error'), true);
    assert.equal(await page.inputValue('#json-editor'), broken);
    assert.equal(await page.$eval('#builder', (node) => node.disabled), true);
    await screenshot(page, '03-invalid-json');
    assertQuiet(record);
  });

  it('shows a live query\'s reasons and advice; the advised rollup, built, answers it', async () => {
    const { page, record } = await open();
    await connect(page, 'admin');
    await member(page, 'Order.revenue').check();
    await member(page, 'Order.status').check();
    await member(page, 'Customer.segment').check();
    await page.selectOption('#time-dimension', 'Order.order_date');
    await page.selectOption('#time-grain', 'month');
    await page.fill('#time-from', monthStart(4));
    await page.fill('#time-to', monthStart(0));
    const query = await editorQuery(page);
    assert.equal(query.time_dimensions[0].range[0], monthStart(4));
    await runAndWait(page, () => page.click('#run'));
    assert.equal(await page.getAttribute('#routing .facts', 'data-used'), '');
    const reason = page.locator('#routing li[data-rollup="monthly_order_summary"]');
    assert.equal(await reason.getAttribute('data-reason'), 'dimension_not_stored');
    assert.match(await reason.textContent(), /does not store a dimension/);
    await page.waitForSelector('#advisor .advice, #advisor .error-box');
    const advice = (await server.api('/v1/rollups/advise', 'admin', query)).json;
    assert.ok(advice.rollups.length >= 1, JSON.stringify(advice));
    const name = advice.rollups[0].name;
    assert.equal(await page.getAttribute('#advisor .advice', 'data-rollup'), name);
    assert.equal(await page.textContent('#advice-yaml'), advice.yaml);
    assert.equal(advice.answers, true);
    assert.ok(advice.rollups[0].build_range, 'a ranged query gets a build_range');
    assert.match(await page.textContent('#advisor .advice'), /Build range/);
    await page.click('#copy-yaml');
    assert.equal(await clipboardOrFallback(page), advice.yaml);
    await screenshot(page, '04-live-advice');

    // Write the advice into the model, build it, wait for the reload: the rollup answers.
    const model = path.join(project, 'semantic', 'model.yml');
    const reloaded = server.nextEvent((event) => event.event === 'reload' && event.ok === true, 30_000);
    fs.writeFileSync(model, withRollups(fs.readFileSync(model, 'utf8'), advice.yaml));
    await reloaded;
    buildRollup(project, name);
    const answered = await server.api('/v1/query', 'admin', query);
    assert.equal(answered.json.meta.rollup.used, name, JSON.stringify(answered.json.meta));
    await runAndWait(page, () => page.click('#run'));
    assert.equal(await page.getAttribute('#routing .facts', 'data-used'), name);
    assert.deepEqual(await tableRows(page), answered.json.rows);
    await screenshot(page, '05-advised-rollup-answers');
    await assertFits(page);
    assertQuiet(record);
  });

  it('shows a role only its entities', async () => {
    const { page, record } = await open();
    await connect(page, 'paid_orders_only');
    assert.deepEqual(await page.$$eval('#members .entity', (nodes) => nodes.map((n) => n.dataset.entity)), ['Order']);
    assert.match(await page.textContent('#role-badge'), /paid_orders_only/);
    await screenshot(page, '06-role-paid-orders-only');
    assertQuiet(record);
  });

  it('says a bad token is rejected, with the hint', async () => {
    const { page, record } = await open();
    await page.goto(`${server.origin}/`);
    await page.fill('#token-input', 'not-a-jwt');
    await page.click('#token-form button[type=submit]');
    await page.waitForSelector('#notice:not([hidden])');
    assert.match(await page.textContent('#notice'), /Token rejected \(401/);
    assert.match(await page.textContent('#notice'), /Hint:/);
    assert.equal(await page.$eval('#builder', (node) => node.disabled), true);
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await screenshot(page, '07-bad-token');
    assertQuiet(record, [/status of 401/]);
  });

  it('shows markup from a query and an error as text, next to the member', async () => {
    const { page, record } = await open();
    await connect(page, 'admin');
    const markup = '<img src=x onerror=alert(1)>';
    await page.fill('#json-editor', JSON.stringify({ measures: ['Order.order_count'],
      filters: [{ member: `Order.${markup}`, op: 'equals', values: ['<script>alert(2)</script>'] }] }));
    assert.equal(await page.inputValue('#filter-values-0'), '<script>alert(2)</script>');
    await runAndWait(page, () => page.click('#run'));
    const error = page.locator('#filter-section .inline-error');
    assert.match(await error.textContent(), /<img src=x onerror=alert\(1\)>/);
    assert.equal(await page.locator('#filter-section .filter-row.invalid').count(), 1);
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.locator('body script').count(), 0);
    await screenshot(page, '08-markup-as-text');
    // An error about the time zone sits by its input; one naming no control, atop the builder.
    await page.fill('#json-editor', JSON.stringify({ measures: ['Order.order_count'], timezone: 'Mars/Base' }));
    await runAndWait(page, () => page.click('#run'));
    assert.match(await page.textContent('.limits + .inline-error'), /InvalidTimeZone/);
    assert.equal(await page.getAttribute('#timezone-input', 'aria-invalid'), 'true');
    await page.fill('#json-editor', JSON.stringify({ measures: ['Order.nope'] }));
    assert.equal(await page.locator('.inline-error').count(), 0, 'an edit clears the marks');
    await runAndWait(page, () => page.click('#run'));
    assert.match(await page.textContent('#builder-error'), /QueryInvalid.*"nope"/);
    assertQuiet(record, [/status of 400/]);
  });

  it('shows markup from the warehouse\'s rows as text in the table, the chart and its legend', async () => {
    const { page, record } = await open();
    await connect(page, 'admin');
    const query = { measures: ['Order.order_count'], dimensions: ['Customer.segment', 'Order.status'] };
    await page.fill('#json-editor', JSON.stringify(query));
    await runAndWait(page, () => page.click('#run'));
    const api = await server.api('/v1/query', 'admin', query);
    assert.ok(api.json.rows.some((row) => row[0] === MARKUP_SEGMENT), 'the marked segment is answered');
    assert.deepEqual(await tableRows(page), api.json.rows);
    const cells = await page.$$eval('#table td', (all) => all.map((cell) => cell.textContent));
    assert.ok(cells.includes(MARKUP_SEGMENT), 'the table shows the tag as text');
    assert.ok((await page.textContent('#chart')).includes(MARKUP_SEGMENT), 'the chart shows it as text');
    assert.equal(await page.locator('#chart .mark').count(), api.json.rows.length);
    assert.equal(await page.locator('img').count(), 0);
    assert.equal(await page.locator('body script').count(), 0);
    await screenshot(page, '08-markup-from-data');
    assertQuiet(record);
  });

  it('copies the query as JSON, curl (no token) and SQL', async () => {
    const { page, record } = await open();
    await connect(page, 'admin');
    const query = { measures: ['Order.revenue'], dimensions: ['Customer.region'],
      time_dimensions: [{ dimension: 'Order.order_date', grain: 'month', range: ['2026-01-01', '2026-04-01'] }],
      filters: [{ member: 'Order.status', op: 'equals', values: ["it's"] }, { member: 'Order.revenue', op: 'gt', values: [10] }],
      order: [{ member: 'Order.revenue', desc: true }], limit: 10, timezone: 'Europe/Berlin' };
    await page.fill('#json-editor', JSON.stringify(query));
    await page.click('#copy-json');
    assert.deepEqual(JSON.parse(await clipboardOrFallback(page)), query);
    await page.click('#copy-curl');
    const curl = await clipboardOrFallback(page);
    assert.ok(curl.startsWith(`curl -sS -X POST ${server.origin}/v1/query -H "Authorization: Bearer $STRATA_TOKEN"`), curl);
    for (const value of tokens) assert.ok(!curl.includes(value));
    assert.ok(curl.includes(`'${JSON.stringify(query).replace(/'/g, "'\\''")}'`));
    await page.click('#copy-sql');
    assert.equal(await clipboardOrFallback(page), [
      "SET TimeZone = 'Europe/Berlin';",
      'SELECT "customer__region",',
      `       DATE_TRUNC('month', "order_date") AS "order_date",`,
      '       MEASURE("revenue") AS "revenue"',
      'FROM strata."Order"',
      `WHERE "order_date" >= '2026-01-01' AND "order_date" < '2026-04-01'`,
      `  AND "status" = 'it''s'`,
      'GROUP BY 1, 2',
      'HAVING MEASURE("revenue") > 10',
      'ORDER BY "revenue" DESC',
      'LIMIT 10;', ''].join('\n'));
    assertQuiet(record);
  });

  it('copies SQL that the SQL port answers with the same rows', async () => {
    const { page, record } = await open();
    await connect(page, 'north_analyst');
    const query = { measures: ['Order.order_count'], dimensions: ['Order.status', 'Customer.segment'],
      filters: [{ member: 'Order.status', op: 'not_equals', values: ['cancelled'] }, { member: 'Order.order_count', op: 'gt', values: [1000] }],
      order: [{ member: 'Order.order_count', desc: true }], limit: 5 };
    await page.fill('#json-editor', JSON.stringify(query));
    await page.click('#copy-sql');
    const sql = await clipboardOrFallback(page);
    const api = await server.api('/v1/query', 'north_analyst', query);
    assert.equal(api.status, 200);
    assert.ok(api.json.rows.length > 1);
    assert.deepEqual(psql(server.sqlPort, 'north_analyst', sql), api.json.rows.map((row) => row.join('|')));
    assertQuiet(record);
  });

  it('runs a query with Tab and Enter alone, and Ctrl+Enter in the editor', async () => {
    const { page, record } = await open();
    await page.goto(`${server.origin}/`);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'token-input');
    await page.keyboard.type(tokenFor('admin'));
    await page.keyboard.press('Enter');
    await page.waitForSelector('#members .entity');
    for (let i = 0; i < 5 && await page.evaluate(() => document.activeElement.id) !== 'member-search'; ++i) {
      await page.keyboard.press('Tab');
    }
    await page.keyboard.type('order_count');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Space');
    assert.equal(await member(page, 'Order.order_count').isChecked(), true);
    for (let i = 0; i < 40 && await page.evaluate(() => document.activeElement.id) !== 'run'; ++i) {
      await page.keyboard.press('Tab');
    }
    assert.equal(await page.evaluate(() => document.activeElement.id), 'run');
    await screenshot(page, '09-keyboard-focus-run');
    assert.match(await runAndWait(page, () => page.keyboard.press('Enter')), /1 row in/);
    assert.equal(await page.getAttribute('#chart', 'data-kind'), 'tiles');
    await page.focus('#json-editor');
    await page.keyboard.press('End');
    assert.match(await runAndWait(page, () => page.keyboard.press('Control+Enter')), /1 row in/);
    assertQuiet(record);
  });

  it('fits a narrow window', async () => {
    const { page, record } = await open({ width: 420, height: 900 });
    await connect(page, 'admin');
    await page.fill('#json-editor', JSON.stringify({ measures: ['Order.order_count'], dimensions: ['Order.status'] }));
    await runAndWait(page, () => page.click('#run'));
    await screenshot(page, '10-narrow');
    await assertFits(page);
    assertQuiet(record);
  });

  it('sent nothing off 127.0.0.1 and put no token in a URL or a log line', () => {
    const urls = records.flatMap((record) => record.requests);
    assert.ok(urls.length > 0);
    for (const url of urls) {
      assert.equal(new URL(url).hostname, '127.0.0.1', url);
      for (const value of tokens) assert.ok(!url.includes(value), `token in ${url}`);
    }
    assert.ok(server.lines.length > 0);
    for (const line of server.lines) {
      for (const value of tokens) assert.ok(!line.includes(value), `token in log line ${line}`);
    }
  });
});

// The text the page copied: the clipboard, or the fallback textarea when there is none.
async function clipboardOrFallback(page) {
  await page.waitForFunction(() => document.getElementById('copy-status').textContent !== '');
  const text = await page.evaluate(async () => {
    const fallback = document.getElementById('copy-fallback');
    const value = fallback.hidden ? await navigator.clipboard.readText() : document.getElementById('copy-fallback-text').value;
    document.getElementById('copy-status').textContent = '';
    return value;
  });
  return text;
}

// The model's YAML with the advised `rollups:` entries added at the top of its own `rollups:`
// list, re-indented to the model's indentation of that list.
function withRollups(model, advised) {
  const entries = advised.replace(/^rollups:[ \t]*\n/, '');
  const indentOf = (text) => (/^( *)- /m.exec(text) || ['', ''])[1].length;
  const listed = /^rollups:[ \t]*\n(?:[ \t]*(?:#.*)?\n)*/m.exec(model);
  assert.ok(listed, 'the model has a rollups: list');
  const shift = indentOf(model.slice(listed.index + listed[0].length)) - indentOf(entries);
  const moved = entries.split('\n').map((line) => (line === '' ? line
    : shift >= 0 ? ' '.repeat(shift) + line : line.slice(-shift))).join('\n');
  const at = listed.index + listed[0].length;
  return model.slice(0, at) + moved + (moved.endsWith('\n') ? '' : '\n') + model.slice(at);
}
