import assert from 'node:assert/strict';

export interface ConsoleRequestOptions {
  method?: string;
  cookie?: string;
  form?: Record<string, string>;
  json?: unknown;
  headers?: Record<string, string>;
}

/** A GET or form (or JSON) POST to the console at `base`, redirects not followed, with the session cookie when given. */
export async function consoleRequest(base: string, pathname: string, opts: ConsoleRequestOptions = {}) {
  const res = await fetch(`${base}${pathname}`, {
    method: opts.method ?? (opts.form || opts.json ? 'POST' : 'GET'),
    redirect: 'manual',
    headers: {
      ...(opts.cookie ? { cookie: opts.cookie } : {}),
      ...(opts.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      ...(opts.json ? { 'content-type': 'application/json', accept: 'application/json' } : {}),
      ...opts.headers,
    },
    body: opts.form ? new URLSearchParams(opts.form).toString() : opts.json ? JSON.stringify(opts.json) : undefined,
  });
  return { status: res.status, headers: res.headers, text: await res.text(), cookie: sessionCookieOf(res) };
}

const sessionCookieOf = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith('converse_console='))?.split(';')[0];

/** Signs in to the console at `base` with a secret key (its sign-in form) and returns the session. */
export async function signInToConsole(base: string, apiKey: string) {
  const res = await consoleRequest(base, '/console/sign-in', { form: { secret_key: apiKey }, headers: { origin: base } });
  assert.equal(res.status, 303, res.text);
  assert.ok(res.cookie, 'a session cookie');
  return consoleSession(base, res.cookie);
}

/**
 * The console session of `cookie`, with its CSRF token (from the keys page): `post` sends a form as the
 * console's pages do, `postJson` JSON as its scripts do.
 */
export async function consoleSession(base: string, cookie: string) {
  const page = await consoleRequest(base, '/console/keys', { cookie });
  assert.equal(page.status, 200, page.text);
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(page.text)?.[1];
  assert.ok(csrf);
  return {
    cookie,
    csrf,
    get: (p: string) => consoleRequest(base, p, { cookie }),
    post: (p: string, body: Record<string, string> = {}, headers: Record<string, string> = {}) =>
      consoleRequest(base, p, { cookie, form: { _csrf: csrf, ...body }, headers: { origin: base, ...headers } }),
    postJson: (p: string, body: unknown) => consoleRequest(base, p, { cookie, json: body, headers: { origin: base, 'x-csrf-token': csrf } }),
  };
}
