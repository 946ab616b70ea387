import { createHmac } from 'node:crypto';

/** A website visitor's calls as a browser on `origin` makes them: a publishable key, a visitor token, an identity JWT. */
export function visitorClient(baseUrl: string, opts: { key: string; origin?: string; token?: string; jwt?: string }) {
  return async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${opts.key}`,
        ...(opts.origin !== undefined ? { origin: opts.origin } : {}),
        ...(opts.token ? { 'x-visitor-token': opts.token } : {}),
        ...(opts.jwt ? { 'x-visitor-identity': opts.jwt } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON (an event stream): keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
}

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

/** A JWT as a business's server signs it (HS256 over header.payload with the agent's identity secret). */
export function signJwt(header: Record<string, unknown>, payload: unknown, secret: string): string {
  const signingInput = `${b64(header)}.${b64(payload)}`;
  return `${signingInput}.${createHmac('sha256', secret).update(signingInput).digest('base64url')}`;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);
