// The playground tests' world: a real project (`strata init --example`, its rollup built), a real
// `strata serve` on 127.0.0.1 (port 0: the port comes from its "listening" log line), HS256
// tokens signed here with node:crypto (independently of strata's JWT code), and Debian's
// Chromium driven by playwright-core, every request URL and console message recorded.

import { spawn, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..', '..');
// The segment of customer 7 in the tests' warehouse (makeProject).
export const MARKUP_SEGMENT = '<img src=x onerror=alert(3)><script>alert(4)</script>';
export const SECRET = 'playground-test-secret-long-enough-0123456789abcdef';
export const SHOTS = process.env.PLAYGROUND_OUT || path.join(ROOT, 'build', 'playground-shots');
const CHROMIUM = process.env.PLAYGROUND_CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function strataBin() {
  const bin = process.env.STRATA_BIN;
  if (!bin || !fs.existsSync(bin)) throw new Error('STRATA_BIN must name the strata binary');
  return path.resolve(bin);
}

function strata(args, timeout = 600_000) {
  const run = spawnSync(strataBin(), args, { encoding: 'utf8', timeout, env: { ...process.env, STRATA_JWT_SECRET: SECRET } });
  if (run.status !== 0) throw new Error(`strata ${args.join(' ')} exited ${run.status}:\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

// The example shop in a fresh folder, its rollup built, no refresh schedule (the tests build).
export function makeProject() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-playground-'));
  const project = path.join(dir, 'shop');
  strata(['init', project, '--example']);
  // A value from the warehouse is the page's widest door for markup: one customer's segment is
  // an HTML tag (Python's duckdb 1.4.4, which scripts/setup.sh installs, writes it).
  const update = spawnSync('python3', ['-c', `import duckdb, sys
db = duckdb.connect(sys.argv[1])
db.execute("UPDATE raw.customers SET segment = ? WHERE customer_id = 7", [sys.argv[2]])
db.close()`, path.join(project, 'warehouse.duckdb'), MARKUP_SEGMENT], { encoding: 'utf8' });
  if (update.status !== 0) throw new Error(`marking a segment failed:\n${update.stderr}`);
  // [serve] is the example's last table: no refresh schedule (the tests build), and the SQL port
  // on a free port, for the copied SQL.
  fs.appendFileSync(path.join(project, 'strata.toml'), 'refresh_check_seconds = 0\nsql_port = 0\n');
  strata(['rollups', 'build', '--project', project]);
  return project;
}

export function buildRollup(project, name) {
  return strata(['rollups', 'build', '--project', project, '--rollup', name]);
}

export function removeProject(project) {
  fs.rmSync(path.dirname(project), { recursive: true, force: true });
}

export function token(role, seconds = 3600) {
  const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ role, exp: Math.floor(Date.now() / 1000) + seconds })}`;
  return `${unsigned}.${createHmac('sha256', SECRET).update(unsigned).digest('base64url')}`;
}

// Runs `sql` through psql on the SQL port; the rows as unaligned text lines ("a|b").
export function psql(port, role, sql) {
  const run = spawnSync('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1',
    `host=127.0.0.1 port=${port} user=playground dbname=strata`, '-f', '-'],
  { input: sql, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PGPASSWORD: token(role) } });
  if (run.status !== 0) throw new Error(`psql exited ${run.status}:\n${run.stderr}`);
  return run.stdout.split('\n').filter((line) => line !== '');
}

export class Server {
  constructor(project) {
    this.lines = [];
    this.process = spawn(strataBin(), ['serve', '--project', project, '--host', '127.0.0.1', '--port', '0'],
      { env: { ...process.env, STRATA_JWT_SECRET: SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.process.stdout.resume();
    let buffer = '';
    this.process.stderr.setEncoding('utf8');
    this.process.stderr.on('data', (chunk) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop();
      for (const line of lines) this.onLine(line);
    });
    this.waiters = [];
  }

  onLine(line) {
    this.lines.push(line);
    let event = null;
    try { event = JSON.parse(line); } catch { return; }
    if (event.event === 'listening' && (event.api || 'query') === 'query') this.port = event.port;
    if (event.event === 'listening' && event.api === 'sql') this.sqlPort = event.port;
    this.waiters = this.waiters.filter((waiter) => !waiter(event));
  }

  // Resolves with the first log event (from now on) that `match` accepts.
  nextEvent(match, timeoutMs = 30_000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching log event:\n${this.lines.slice(-20).join('\n')}`)), timeoutMs);
      this.waiters.push((event) => {
        if (!match(event)) return false;
        clearTimeout(timer);
        resolve(event);
        return true;
      });
    });
  }

  async started() {
    const deadline = Date.now() + 60_000;
    while (!this.port) {
      if (this.process.exitCode !== null) throw new Error(`strata serve exited:\n${this.lines.join('\n')}`);
      if (Date.now() > deadline) throw new Error(`strata serve did not start:\n${this.lines.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    this.apiOrigin = `http://127.0.0.1:${this.port}`;
    this.origin = this.apiOrigin;
    if (process.env.PLAYGROUND_DEV_PROXY === '1') {
      const { startProxy } = await import('./dev_proxy.js');
      this.proxy = await startProxy(this.port);
      this.origin = `http://127.0.0.1:${this.proxy.address().port}`;
    }
    return this;
  }

  // POST /v1/query (or another route) from node, as a client other than the page.
  async api(route, role, body) {
    const response = await fetch(`${this.origin}${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { Authorization: `Bearer ${token(role)}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, json: await response.json() };
  }

  async stop() {
    if (this.proxy) { this.proxy.closeAllConnections(); this.proxy.close(); }
    if (this.process.exitCode !== null) return;
    const exited = new Promise((resolve) => this.process.once('exit', resolve));
    this.process.kill('SIGTERM');
    await exited;
  }
}

// One browser for the whole run; each test gets a fresh context (its own sessionStorage).
export async function launchBrowser() {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

// A page that records every request URL, console message and page error.
export async function openPage(browser, { width = 1280, height = 800 } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  const record = { requests: [], console: [], errors: [], dialogs: [] };
  page.on('request', (request) => record.requests.push(request.url()));
  page.on('console', (message) => record.console.push({ type: message.type(), text: message.text() }));
  page.on('pageerror', (error) => record.errors.push(String(error)));
  page.on('dialog', async (dialog) => { record.dialogs.push(dialog.message()); await dialog.dismiss(); });
  return { context, page, record };
}

export async function screenshot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}
