import { createHash, randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { AccountRepo } from './account.repo';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import { activeSigningSecrets, MAX_SIGNING_SECRET_GRACE_SECONDS, newSigningSecret } from '../domain/signature';
import type { Principal } from '../domain/principal';
import type { Role } from '../domain/roles';
import type { Logger } from '../observability/logger';

export const hashApiKey = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Longest grace period of a rotated signing secret (Stripe's figure for webhook secrets). */

/** A key's `last_used_at` is written at most this often (per key, per process). */
export const KEY_USE_WRITE_INTERVAL_MS = 60_000;

/** Cache lifetime of an authenticated key when revocations are not announced to this process. */
const UNANNOUNCED_CACHE_TTL_MS = 1000;

const API_KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9]{24,}$/;

/**
 * Accounts and their secret API keys. Keys are stored as sha256 hashes; the secret is returned once,
 * at creation. Authentication results are cached briefly so the hot path costs no query; a revocation
 * reaches every process within a second (setRevocationFeed).
 */
export class AccountsService {
  private readonly repo = new AccountRepo();
  private readonly cache = new Map<string, { principal: Principal; expires: number }>();
  private revocationFeedLive = false;
  private readonly revocationListeners = new Set<(keyId: string) => void>();
  /** Key id → when this process last wrote its last_used_at (ms). */
  private readonly keyUseWritten = new Map<string, number>();

  constructor(private readonly deps: { db: Kysely<DB>; cacheTtlMs?: number; log?: Logger }) {}

  /**
   * Notes that a request used this key: writes `last_used_at` at most once a minute per key (the console's
   * "Last used"), off the request's path: the update is not awaited, and its failure is logged, never the
   * request's. Several processes each write at most once a minute.
   */
  recordKeyUse(keyId: string): void {
    const now = Date.now();
    const written = this.keyUseWritten.get(keyId);
    if (written !== undefined && now - written < KEY_USE_WRITE_INTERVAL_MS) return;
    this.keyUseWritten.set(keyId, now);
    this.repo.touchApiKey(this.deps.db, keyId, new Date(now)).catch((err: unknown) => {
      // Try again on the key's next request rather than in a minute.
      if (this.keyUseWritten.get(keyId) === now) this.keyUseWritten.delete(keyId);
      this.deps.log?.warn({ err, keyId }, 'Recording an API key\'s last use failed');
    });
  }

  async createAccount(input: { name: string }) {
    return this.repo.insertAccount(this.deps.db, {
      id: newId(IdPrefix.account),
      name: input.name,
      signing_secret: newSigningSecret(),
      test_signing_secret: newSigningSecret(),
    });
  }

  async getAccount(input: { accountId: string }) {
    const account = await this.repo.getAccountById(this.deps.db, input.accountId);
    if (!account) throw notFound('account', input.accountId);
    return account;
  }

  /**
   * The secrets that sign the account's tool calls, api-source queries and status callbacks in one mode
   * (test and live have a secret each): the current one, then the one it replaced while that is within
   * its grace period (both sign meanwhile).
   */
  async getSigningSecret(input: { accountId: string; livemode: boolean }): Promise<string[]> {
    const row = await this.repo.getSigningSecrets(this.deps.db, input.accountId, input.livemode);
    if (!row) throw notFound('account', input.accountId);
    return activeSigningSecrets(row);
  }

  /**
   * Replaces the signing secret of one mode (the other mode's is untouched). The old one keeps signing
   * beside the new one for `gracePeriodSeconds` (0 to 24 h, default 24 h), so receivers can switch
   * without dropping a call.
   */
  /** Changes the fields given (none: the account as it is). */
  async updateAccount(input: { accountId: string; signSmsReplies?: boolean }) {
    if (input.signSmsReplies === undefined) return this.getAccount(input);
    const row = await this.repo.updateAccount(this.deps.db, input.accountId, { sign_sms_replies: input.signSmsReplies });
    if (!row) throw notFound('account', input.accountId);
    return row;
  }

  async rotateSigningSecret(input: { accountId: string; livemode: boolean; gracePeriodSeconds?: number }) {
    const grace = input.gracePeriodSeconds ?? MAX_SIGNING_SECRET_GRACE_SECONDS;
    const until = grace > 0 ? new Date(Date.now() + grace * 1000) : null;
    const row = await this.repo.rotateSigningSecret(this.deps.db, { id: input.accountId, livemode: input.livemode, secret: newSigningSecret(), previousExpiresAt: until });
    if (!row) throw notFound('account', input.accountId);
    return row;
  }

  async findAccountByName(input: { name: string }) {
    return this.repo.getAccountByName(this.deps.db, input.name);
  }

  /** A new key: `role` owner unless given (a teammate's key is at most their role: the console checks). */
  async createApiKey(input: { accountId: string; mode: 'test' | 'live'; name?: string; role?: Role; createdByUserId?: string | null }) {
    await this.getAccount({ accountId: input.accountId });
    const secret = `sk_${input.mode}_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`;
    const row = await this.repo.insertApiKey(this.deps.db, {
      id: newId(IdPrefix.apiKey),
      account_id: input.accountId,
      mode: input.mode,
      secret_hash: hashApiKey(secret),
      last4: secret.slice(-4),
      name: input.name ?? 'default',
      role: input.role ?? 'owner',
      created_by_user_id: input.createdByUserId ?? null,
    });
    return { key: row, secret };
  }

  /**
   * The account's keys (never their secrets: only the last four characters are kept in the clear); with
   * `mode`, only that mode's (a console session sees the keys of its own mode).
   */
  async listApiKeys(input: { accountId: string; mode?: 'test' | 'live' }) {
    return this.repo.listApiKeys(this.deps.db, input.accountId, input.mode);
  }

  /** Revokes a key (with `mode`, only a key of that mode: another mode's is not found). */
  async revokeApiKey(input: { accountId: string; keyId: string; mode?: 'test' | 'live' }) {
    const row = await this.deps.db.transaction().execute(async (trx) => {
      const revoked = await this.repo.revokeApiKey(trx, { accountId: input.accountId, id: input.keyId, mode: input.mode });
      if (revoked) await this.repo.notifyApiKeyRevoked(trx, revoked.id);
      return revoked;
    });
    if (!row) throw notFound('api key', input.keyId);
    this.forgetApiKey({ keyId: row.id });
    return row;
  }

  /** Whether live traffic is possible at all: some account holds an unrevoked live key. */
  async liveKeysExist(): Promise<boolean> {
    return this.repo.hasActiveLiveKey(this.deps.db);
  }

  /** Drops a key from this process's cache (a revocation here or announced by another process), and tells the listeners. */
  forgetApiKey(input: { keyId: string }) {
    for (const [hash, entry] of this.cache) if (entry.principal.keyId === input.keyId) this.cache.delete(hash);
    for (const listener of this.revocationListeners) listener(input.keyId);
  }

  /**
   * Calls `listener` with the id of every key revoked from now on, here or in another process (through the
   * revocation feed): the widget's publishable keys end their open streams with it. Returns the unsubscribe.
   */
  onKeyRevoked(listener: (keyId: string) => void): () => void {
    this.revocationListeners.add(listener);
    return () => this.revocationListeners.delete(listener);
  }

  /**
   * Announces a revocation of another kind of key (a publishable key) on the same feed, inside the
   * transaction that revokes it (delivered at commit); call forgetApiKey after the commit for this process.
   */
  async announceKeyRevoked(input: { tx: Transaction<DB>; keyId: string }) {
    await this.repo.notifyApiKeyRevoked(input.tx, input.keyId);
  }

  /**
   * Whether revocations reach this process as they happen (a LISTEN subscription is up). While they do,
   * authenticated keys are cached for `cacheTtlMs`; otherwise for at most a second, so a key revoked by
   * another process stops working within a second either way. (Re)connecting clears the cache: what was
   * announced while disconnected is unknown.
   */
  setRevocationFeed(input: { live: boolean }) {
    this.revocationFeedLive = input.live;
    this.cache.clear();
  }

  /** Resolves a bearer secret to its account; 401 for anything else. */
  async authenticate(secret: string): Promise<Principal> {
    if (!API_KEY_PATTERN.test(secret)) {
      throw new AppError('api_key_invalid', 'Invalid API key: expected sk_test_… or sk_live_…');
    }
    const hash = hashApiKey(secret);
    const hit = this.cache.get(hash);
    if (hit && hit.expires > Date.now()) return hit.principal;
    const key = await this.repo.getActiveApiKeyByHash(this.deps.db, hash);
    if (!key) throw new AppError('api_key_invalid', `Invalid API key provided: sk_…${secret.slice(-4)}`);
    const principal: Principal = { accountId: key.account_id, keyId: key.id, mode: key.mode, role: key.role };
    const ttl = this.revocationFeedLive ? (this.deps.cacheTtlMs ?? 30_000) : Math.min(this.deps.cacheTtlMs ?? 30_000, UNANNOUNCED_CACHE_TTL_MS);
    this.cache.set(hash, { principal, expires: Date.now() + ttl });
    return principal;
  }
}
