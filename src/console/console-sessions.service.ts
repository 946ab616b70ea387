import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Kysely } from 'kysely';
import type { AccountsService } from '../accounts/accounts.service';
import type { DB } from '../db/schema';
import { AppError } from '../domain/errors';
import type { Role } from '../domain/roles';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** A signed-in console: the account everything shown belongs to, and the CSRF token its forms carry. */
export interface ConsoleSession {
  accountId: string;
  mode: 'test' | 'live';
  userId: string | null;
  /** The key a key sign-in used (the session ends when it is revoked); null for a console user. */
  keyId: string | null;
  /** What this sign-in may do: the teammate's role, or the key's (keys made before roles are owners). */
  role: Role;
  /** The teammate's display name (their email when they set none); null for a key sign-in. */
  displayName: string | null;
  csrfToken: string;
  expiresAt: Date;
}

/** scrypt with a random salt: `scrypt$<salt b64>$<hash b64>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`;
}

async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length);
  return timingSafeEqual(actual, expected);
}

const invalidSignIn = () => new AppError('api_key_invalid', 'Wrong email or password, or an unknown secret key');

/** How long a one-time sign-in link printed by `npm start` may wait to be opened. */
export const SIGN_IN_LINK_TTL_MS = 3600_000;

/**
 * Console sign-ins. A session is a random token in an HttpOnly cookie; Postgres keeps only its SHA-256,
 * the account and mode it signs in to, what opened it (the API key, or the console user), its CSRF token
 * and its expiry (sliding: used sessions are extended). A session lives only as long as what opened it:
 * revoking the key or disabling the user ends it on its next request.
 */
export class ConsoleSessionsService {
  constructor(private readonly deps: { db: Kysely<DB>; accounts: AccountsService; ttlMs?: number }) {}

  private get ttlMs() {
    return this.deps.ttlMs ?? 12 * 3600_000;
  }

  /** Signs in with an account's secret key (sk_test_… or sk_live_…): the session has the key's mode. */
  async signInWithKey(input: { secret: string }): Promise<{ token: string; session: ConsoleSession }> {
    let principal;
    try {
      principal = await this.deps.accounts.authenticate(input.secret.trim());
    } catch {
      throw invalidSignIn();
    }
    this.deps.accounts.recordKeyUse(principal.keyId);
    return this.open({ accountId: principal.accountId, mode: principal.mode, userId: null, keyId: principal.keyId }, { role: principal.role ?? 'owner', displayName: null });
  }

  /** Signs in a console user (email and password); users work in the account's test data unless `mode`. */
  async signInWithPassword(input: { email: string; password: string; mode?: 'test' | 'live' }): Promise<{ token: string; session: ConsoleSession }> {
    const user = await this.deps.db
      .selectFrom('console_users')
      .selectAll()
      .where((eb) => eb(eb.fn('lower', ['email']), '=', input.email.trim().toLowerCase()))
      .where('disabled_at', 'is', null)
      .executeTakeFirst();
    // A missing user still costs one scrypt, so timing does not tell which emails exist.
    const ok = await verifyPassword(input.password, user?.password_hash ?? 'scrypt$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=');
    if (!user || !ok) throw invalidSignIn();
    return this.open({ accountId: user.account_id, mode: input.mode ?? 'test', userId: user.id, keyId: null }, { role: user.role, displayName: user.display_name || user.email });
  }

  /** A console user of the account (an invite's acceptance makes one: TeammatesService). */
  async createUser(input: { accountId: string; email: string; password: string; role?: Role; displayName?: string }) {
    if (input.password.length < 10) throw new AppError('parameter_invalid', 'A console password has at least 10 characters', { param: 'password' });
    if (input.password.length > 1024) throw new AppError('parameter_invalid', 'A console password has at most 1024 characters', { param: 'password' });
    await this.deps.accounts.getAccount({ accountId: input.accountId });
    const id = `cu_${randomBytes(12).toString('hex')}`;
    try {
      await this.deps.db
        .insertInto('console_users')
        .values({ id, account_id: input.accountId, email: input.email.trim(), password_hash: await hashPassword(input.password), role: input.role ?? 'owner', display_name: input.displayName?.trim() ?? '' })
        .execute();
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw new AppError('parameter_invalid', `A console user with the email ${input.email} exists already`, { param: 'email' });
      throw err;
    }
    return { id, accountId: input.accountId, email: input.email.trim(), role: input.role ?? 'owner' };
  }

  /**
   * Disables a console user: they can no longer sign in, and their sessions end at once (deleted here;
   * a session of a disabled user is refused anyway).
   */
  async disableUser(input: { accountId: string; userId: string }): Promise<void> {
    const row = await this.deps.db
      .updateTable('console_users')
      .set({ disabled_at: new Date() })
      .where('id', '=', input.userId)
      .where('account_id', '=', input.accountId)
      .returning('id')
      .executeTakeFirst();
    if (!row) throw new AppError('resource_missing', `No such console user: '${input.userId}'`);
    await this.deps.db.deleteFrom('console_sessions').where('user_id', '=', input.userId).execute();
  }

  /**
   * A one-time sign-in link token for a test key (`npm start` prints one for the development account):
   * opening `/console/sign-in/<token>` within SIGN_IN_LINK_TTL_MS signs that browser in with the key,
   * once. Nothing signs in by itself: whoever holds the printed link does.
   */
  async createSignInLink(input: { secret: string }): Promise<{ token: string; expiresAt: Date }> {
    const principal = await this.deps.accounts.authenticate(input.secret.trim());
    if (principal.mode !== 'test') throw new AppError('parameter_invalid', 'Sign-in links are made for test keys only');
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + SIGN_IN_LINK_TTL_MS);
    await this.deps.db.deleteFrom('console_sign_in_links').where('expires_at', '<', new Date()).execute();
    await this.deps.db.insertInto('console_sign_in_links').values({ token_hash: hashToken(token), key_id: principal.keyId, expires_at: expiresAt }).execute();
    return { token, expiresAt };
  }

  /** Opens the session of a sign-in link and spends the link; undefined when unknown, used, expired or its key revoked. */
  async signInWithLink(input: { token: string }): Promise<{ token: string; session: ConsoleSession } | undefined> {
    const link = await this.deps.db
      .deleteFrom('console_sign_in_links')
      .where('token_hash', '=', hashToken(input.token))
      .returning(['key_id', 'expires_at'])
      .executeTakeFirst();
    if (!link || link.expires_at <= new Date()) return undefined;
    const key = await this.deps.db
      .selectFrom('api_keys')
      .select(['id', 'account_id', 'mode', 'role'])
      .where('id', '=', link.key_id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (!key) return undefined;
    return this.open({ accountId: key.account_id, mode: key.mode, userId: null, keyId: key.id }, { role: key.role, displayName: null });
  }

  /**
   * The session a cookie token opens, or undefined when unknown or expired, or when what opened it is
   * gone: its key revoked (or no longer of the session's account and mode), its console user disabled.
   * Extends a session in use.
   */
  async getSession(input: { token: string }): Promise<ConsoleSession | undefined> {
    const hash = hashToken(input.token);
    const row = await this.deps.db
      .selectFrom('console_sessions as s')
      .leftJoin('api_keys as k', 'k.id', 's.key_id')
      .leftJoin('console_users as u', 'u.id', 's.user_id')
      .selectAll('s')
      .select(['k.role as key_role', 'u.role as user_role', 'u.display_name', 'u.email'])
      .where('s.token_hash', '=', hash)
      .where('s.expires_at', '>', new Date())
      .where((eb) =>
        eb.or([
          eb.and([eb('s.key_id', 'is not', null), eb('k.revoked_at', 'is', null), eb('k.account_id', '=', eb.ref('s.account_id')), eb('k.mode', '=', eb.ref('s.mode'))]),
          eb.and([eb('s.key_id', 'is', null), eb('s.user_id', 'is not', null), eb('u.disabled_at', 'is', null), eb('u.account_id', '=', eb.ref('s.account_id'))]),
        ]),
      )
      .executeTakeFirst();
    if (!row) return undefined;
    let expiresAt = row.expires_at;
    // Sliding expiry, written at most once every few minutes.
    if (expiresAt.getTime() - Date.now() < this.ttlMs - 5 * 60_000) {
      expiresAt = new Date(Date.now() + this.ttlMs);
      await this.deps.db.updateTable('console_sessions').set({ expires_at: expiresAt }).where('token_hash', '=', hash).execute();
    }
    const role = (row.key_id !== null ? row.key_role : row.user_role) ?? 'viewer';
    const displayName = row.user_id !== null ? (row.display_name || row.email) : null;
    return { accountId: row.account_id, mode: row.mode, userId: row.user_id, keyId: row.key_id, role, displayName, csrfToken: row.csrf_token, expiresAt };
  }

  async signOut(input: { token: string }): Promise<void> {
    await this.deps.db.deleteFrom('console_sessions').where('token_hash', '=', hashToken(input.token)).execute();
  }

  /** Ends every session of a console user (disabled, removed: TeammatesService). */
  async endSessionsOfUser(input: { userId: string }): Promise<void> {
    await this.deps.db.deleteFrom('console_sessions').where('user_id', '=', input.userId).execute();
  }

  private async open(input: { accountId: string; mode: 'test' | 'live'; userId: string | null; keyId: string | null }, who: { role: Role; displayName: string | null }) {
    const token = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(24).toString('base64url');
    const expiresAt = new Date(Date.now() + this.ttlMs);
    await this.deps.db.deleteFrom('console_sessions').where('expires_at', '<', new Date()).execute();
    await this.deps.db
      .insertInto('console_sessions')
      .values({ token_hash: hashToken(token), account_id: input.accountId, mode: input.mode, user_id: input.userId, key_id: input.keyId, csrf_token: csrfToken, expires_at: expiresAt })
      .execute();
    return { token, session: { ...input, ...who, csrfToken, expiresAt } };
  }
}
