// For working on the page without rebuilding strata: serves src/serve/playground/ as strata serve
// does (/ and /playground/<file>, the same Content-Security-Policy) and passes every other
// request to a running strata serve. The tests use it when PLAYGROUND_DEV_PROXY=1.
//   node tests/playground/dev_proxy.js STRATA_PORT [PORT]

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ASSETS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'serve', 'playground');
export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
  + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.txt': 'text/plain; charset=utf-8' };

export function startProxy(strataPort, port = 0) {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1');
    const file = url.pathname === '/' ? 'index.html'
      : url.pathname.startsWith('/playground/') ? url.pathname.slice('/playground/'.length) : null;
    if (file !== null) {
      const full = path.join(ASSETS, path.basename(file));
      if (request.method !== 'GET' || !fs.existsSync(full)) {
        response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":{"code":"NotFound","message":"no such asset"}}');
        return;
      }
      response.writeHead(200, { 'Content-Type': TYPES[path.extname(full)] || 'application/octet-stream',
        'Content-Security-Policy': CSP, 'X-Content-Type-Options': 'nosniff' });
      response.end(fs.readFileSync(full));
      return;
    }
    const upstream = http.request({ host: '127.0.0.1', port: strataPort, path: request.url, method: request.method,
      headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.writeHead(502).end());
    request.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startProxy(Number(process.argv[2]), Number(process.argv[3] || 0));
  console.log(`http://127.0.0.1:${server.address().port}/`);
}
