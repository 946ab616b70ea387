import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AccountsService } from '../accounts/accounts.service';
import type { AgentsService } from '../agents/agents.service';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import { scopeOf, type PublishableKeyGrant, type Scope, type VisitorPrincipal } from '../domain/principal';
import { validateAllowedOrigins } from './allowed-origins';
import type { VisitorIdentityService } from './visitor-identity.service';
import { VisitorTokens } from './visitor-tokens';
import { WidgetRepo } from './widget.repo';
import { toPublishableKeyObject, type PublishableKeyObject } from './widget.schemas';

const PUBLISHABLE_KEY = /^pk_(test|live)_[A-Za-z0-9]{24,64}$/;
/** last_used_at is written at most this often per key and process (it is a hint, not an audit log). */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
/** Most active publishable keys per agent and mode. */
const MAX_KEYS_PER_AGENT = 20;

/** What authentication learns of a publishable key: its owner, agent and allowed origins. */
export type { PublishableKeyGrant };

/**
 * Publishable keys (pk_test_…, pk_live_…): each opens chat conversations with one agent for website
 * visitors, from its allowed origins only. Authentication reads the key's row on every request (no cache),
 * so a revocation holds at the next request; open streams end through `watchRevocation`, fed by the same
 * revocation feed as the API keys (AccountsService.onKeyRevoked), so another process's revocation ends them too.
 */
export class PublishableKeysService {
  private readonly repo = new WidgetRepo();
  private readonly tokens: VisitorTokens;
  private readonly watchers = new Map<string, Set<AbortController>>();
  private readonly lastUsedWritten = new Map<string, number>();

  constructor(private readonly deps: { db: Kysely<DB>; accounts: AccountsService; agents: AgentsService; identity: VisitorIdentityService; serverSecret: string }) {
    this.tokens = new VisitorTokens(deps.serverSecret);
    deps.accounts.onKeyRevoked((keyId) => {
      for (const c of this.watchers.get(keyId) ?? []) c.abort();
      this.watchers.delete(keyId);
    });
  }

  async createKey(input: Scope & { agentId: string; allowedOrigins: string[]; name?: string }): Promise<PublishableKeyObject> {
    const scope = scopeOf(input);
    const mode = scope.livemode ? 'live' : 'test';
    const origins = validateAllowedOrigins(input.allowedOrigins, mode);
    await this.deps.agents.getAgent({ ...scope, agentId: input.agentId, param: 'agent_id' });
    const active = (await this.repo.listKeys(this.deps.db, scope, input.agentId)).filter((k) => k.revoked_at === null);
    if (active.length >= MAX_KEYS_PER_AGENT) throw new AppError('account_limit_reached', `An agent has at most ${MAX_KEYS_PER_AGENT} active publishable keys: revoke one first`);
    const row = await this.repo.insertKey(this.deps.db, {
      id: newId(IdPrefix.publishableKey),
      account_id: input.accountId,
      livemode: input.livemode,
      agent_id: input.agentId,
      key: `pk_${mode}_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x')}`,
      name: input.name ?? 'Website',
      allowed_origins: origins,
    });
    return toPublishableKeyObject(row);
  }

  async listKeys(input: Scope & { agentId?: string }) {
    const rows = await this.repo.listKeys(this.deps.db, scopeOf(input), input.agentId);
    return { object: 'list' as const, data: rows.map(toPublishableKeyObject), has_more: false };
  }

  async getKey(input: Scope & { keyId: string }): Promise<PublishableKeyObject> {
    const row = await this.repo.getKey(this.deps.db, scopeOf(input), input.keyId);
    if (!row) throw notFound('publishable key', input.keyId);
    return toPublishableKeyObject(row);
  }

  /** Replaces the allowed origins of an active key (a revoked key is not found). */
  async updateKey(input: Scope & { keyId: string; allowedOrigins: string[] }): Promise<PublishableKeyObject> {
    const origins = validateAllowedOrigins(input.allowedOrigins, input.livemode ? 'live' : 'test');
    const row = await this.repo.setAllowedOrigins(this.deps.db, scopeOf(input), input.keyId, origins);
    if (!row) throw notFound('publishable key', input.keyId);
    return toPublishableKeyObject(row);
  }

  /** Revokes a key: its next request is refused, and its open streams end (in every process). */
  async revokeKey(input: Scope & { keyId: string }): Promise<PublishableKeyObject> {
    const row = await this.deps.db.transaction().execute(async (tx) => {
      const revoked = await this.repo.revokeKey(tx, scopeOf(input), input.keyId);
      if (revoked) await this.deps.accounts.announceKeyRevoked({ tx, keyId: revoked.id });
      return revoked;
    });
    if (!row) {
      const existing = await this.repo.getKey(this.deps.db, scopeOf(input), input.keyId);
      if (existing) return toPublishableKeyObject(existing);
      throw notFound('publishable key', input.keyId);
    }
    this.deps.accounts.forgetApiKey({ keyId: row.id });
    return toPublishableKeyObject(row);
  }

  /** The grant of an active publishable key; 401 api_key_invalid for anything else. */
  async authenticateKey(key: string): Promise<PublishableKeyGrant> {
    if (!PUBLISHABLE_KEY.test(key)) throw new AppError('api_key_invalid', 'Invalid publishable key: expected pk_test_… or pk_live_…');
    const row = await this.repo.getActiveKey(this.deps.db, key);
    if (!row) throw new AppError('api_key_invalid', `Invalid publishable key provided: pk_…${key.slice(-4)}`);
    const last = this.lastUsedWritten.get(row.id) ?? 0;
    if (Date.now() - last > LAST_USED_WRITE_INTERVAL_MS) {
      this.lastUsedWritten.set(row.id, Date.now());
      await this.repo.touchKey(this.deps.db, row.id);
    }
    return { keyId: row.id, accountId: row.account_id, mode: row.livemode ? 'live' : 'test', agentId: row.agent_id, allowedOrigins: row.allowed_origins };
  }

  /**
   * The visitor behind a request of a key already authenticated: the one its visitor token names (401 when
   * the token is not this service's for this agent and mode), or a new one; and the customer its identity
   * JWT names (see VisitorIdentityService.identify). `revoked` ends with the key.
   */
  async identifyVisitor(input: { grant: PublishableKeyGrant; visitorToken?: string; identityToken?: string; revoked: AbortSignal }): Promise<VisitorPrincipal> {
    const { grant } = input;
    let visitor: { visitorId: string; token: string; renewed?: boolean };
    if (input.visitorToken !== undefined) {
      const checked = this.tokens.verify({ mode: grant.mode, agentId: grant.agentId, token: input.visitorToken });
      if (!checked.ok && checked.reason === 'expired') {
        throw new AppError('visitor_token_expired', `The X-Visitor-Token expired at ${new Date(checked.expiresAt * 1000).toISOString()} (30 days after it was last renewed): drop it to start as a new visitor`);
      }
      if (!checked.ok) throw new AppError('visitor_token_invalid', 'Invalid X-Visitor-Token: it was not issued for this agent and mode (drop it to start as a new visitor)');
      // Sliding expiry: a token used more than a day after it was issued comes back renewed (Visitor-Token header).
      visitor = this.tokens.shouldRenew(checked.expiresAt)
        ? { visitorId: checked.visitorId, token: this.tokens.tokenFor({ mode: grant.mode, agentId: grant.agentId, visitorId: checked.visitorId }), renewed: true }
        : { visitorId: checked.visitorId, token: input.visitorToken };
    } else {
      visitor = { ...this.tokens.issue({ mode: grant.mode, agentId: grant.agentId }), renewed: true };
    }
    const customer = await this.deps.identity.identify({ agentId: grant.agentId, jwt: input.identityToken });
    return {
      accountId: grant.accountId,
      mode: grant.mode,
      keyId: grant.keyId,
      agentId: grant.agentId,
      visitorId: visitor.visitorId,
      visitorToken: visitor.token,
      visitorTokenRenewed: visitor.renewed === true,
      customer: customer ? (Object.fromEntries(Object.entries(customer).filter(([, v]) => v !== undefined)) as VisitorPrincipal['customer']) : undefined,
      revoked: input.revoked,
    };
  }

  /** Whether some active key allows this origin: a CORS preflight carries no key, so this is all it can ask. */
  async isOriginAllowed(origin: string): Promise<boolean> {
    if (origin.length > 255) return false;
    return this.repo.isOriginAllowedByAnyKey(this.deps.db, origin);
  }

  /** A signal aborted when the key is revoked; `release` when the request ends. */
  watchRevocation(keyId: string): { signal: AbortSignal; release: () => void } {
    const controller = new AbortController();
    let set = this.watchers.get(keyId);
    if (!set) this.watchers.set(keyId, (set = new Set()));
    set.add(controller);
    return {
      signal: controller.signal,
      release: () => {
        const s = this.watchers.get(keyId);
        s?.delete(controller);
        if (s && s.size === 0) this.watchers.delete(keyId);
      },
    };
  }
}
