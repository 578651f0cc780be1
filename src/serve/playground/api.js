// The query port's API as the page uses it. The token lives in sessionStorage (this tab only) and
// travels only in the Authorization header: never in a URL, never logged.

const TOKEN_KEY = 'strata.playground.token';

export function savedToken() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export function saveToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

// An API failure: the server's {"error": {code, message, hint, notes}} with the HTTP status.
export class ApiError extends Error {
  constructor(status, error) {
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.code = error.code || `HTTP_${status}`;
    this.hint = error.hint || '';
    this.notes = error.notes;
  }
}

async function call(method, path, token, body) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store', credentials: 'omit',
    });
  } catch (failure) {
    throw new ApiError(0, { code: 'Unreachable', message: 'the server did not answer',
                            hint: String(failure.message || failure) });
  }
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!response.ok) {
    const error = json && json.error ? json.error : { message: text.slice(0, 300) };
    throw new ApiError(response.status, error);
  }
  return { json, headers: response.headers, status: response.status };
}

export function fetchMeta(token) {
  return call('GET', '/v1/meta', token);
}

export function runQuery(token, query) {
  return call('POST', '/v1/query', token, query);
}

export function adviseRollups(token, query) {
  return call('POST', '/v1/rollups/advise', token, query);
}
