import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { AppError } from '../domain/errors';

/** Longest visitor JWT accepted, checked before anything is decoded (a real one is a few hundred bytes). */
export const MAX_IDENTITY_JWT_LENGTH = 4096;
/** Furthest `exp` may lie ahead: a leaked token is good for a day at most. */
export const MAX_IDENTITY_JWT_LIFETIME_SECONDS = 24 * 60 * 60;
/** Clock difference tolerated between the business's server and this one. */
const CLOCK_SKEW_SECONDS = 60;

const SEGMENT = /^[A-Za-z0-9_-]+$/;

const HeaderSchema = z.object({ alg: z.string(), kid: z.string().max(100).optional(), typ: z.string().max(20).optional() });
const ClaimsSchema = z.object({
  sub: z.string().min(1).max(255),
  exp: z.number().int(),
  iat: z.number().int().optional(),
  nbf: z.number().int().optional(),
  email: z.string().max(320).optional(),
  name: z.string().max(255).optional(),
  phone: z.string().max(32).optional(),
});

export interface VisitorIdentity {
  id: string;
  email?: string;
  name?: string;
  phone?: string;
}

/**
 * Verifies a visitor JWT signed by the business's server: HS256 only (the algorithm is fixed here, never
 * taken from the token, so `none` or an asymmetric algorithm is refused before any key is looked up), the
 * `kid` header naming one of the agent's identity secrets that is still valid, a constant-time signature
 * compare, `exp` required and not more than 24 h ahead, `sub` the customer id. Written on node:crypto
 * (see docs/decisions/widget-visitor-identity.md). Every failure is a 401 with a code saying which.
 */
export async function verifyIdentityJwt(input: {
  token: string;
  secretOf: (kid: string) => Promise<string | undefined>;
  nowSeconds?: number;
}): Promise<VisitorIdentity> {
  const { token } = input;
  if (token.length > MAX_IDENTITY_JWT_LENGTH) throw invalid(`The identity token is longer than ${MAX_IDENTITY_JWT_LENGTH} characters`);
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) throw invalid('The identity token is not a signed JWT (header.payload.signature, base64url)');
  const [h, p, s] = parts as [string, string, string];
  const header = HeaderSchema.safeParse(decodeJson(h, 'header'));
  if (!header.success) throw invalid('The identity token header is not a JWT header');
  if (header.data.alg !== 'HS256') throw invalid(`The identity token must be signed with HS256 (got alg '${header.data.alg.slice(0, 20)}')`);
  if (!header.data.kid) throw invalid('The identity token has no kid header naming the identity secret that signed it');
  const secret = await input.secretOf(header.data.kid);
  if (!secret) throw invalid(`The identity token's kid '${header.data.kid}' names no current identity secret of this agent`);
  const expected = createHmac('sha256', secret).update(`${h}.${p}`).digest();
  const given = Buffer.from(s, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid('The identity token signature does not verify');
  const claims = ClaimsSchema.safeParse(decodeJson(p, 'payload'));
  if (!claims.success) {
    const issue = claims.error.issues[0]!;
    throw invalid(`The identity token's claim '${issue.path.join('.') || 'payload'}' is missing or invalid (exp and sub are required)`);
  }
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  const c = claims.data;
  if (c.exp <= now - CLOCK_SKEW_SECONDS) throw new AppError('identity_token_expired', 'The identity token has expired (exp is past): sign a new one');
  if (c.exp > now + MAX_IDENTITY_JWT_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS) throw invalid('The identity token expires more than 24 h ahead: exp must be at most 24 h from now');
  if (c.nbf !== undefined && c.nbf > now + CLOCK_SKEW_SECONDS) throw invalid('The identity token is not valid yet (nbf is in the future)');
  if (c.iat !== undefined && c.iat > now + CLOCK_SKEW_SECONDS) throw invalid('The identity token was issued in the future (iat)');
  return { id: c.sub, email: c.email, name: c.name, phone: c.phone };
}

function decodeJson(segment: string, part: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    throw invalid(`The identity token ${part} is not JSON`);
  }
}

const invalid = (message: string) => new AppError('identity_token_invalid', message);
