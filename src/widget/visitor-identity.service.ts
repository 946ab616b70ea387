import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AgentsService } from '../agents/agents.service';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import { scopeOf, type Scope } from '../domain/principal';
import { deriveKey, openText, sealText } from '../domain/secret-box';
import { verifyIdentityJwt, type VisitorIdentity } from './identity-jwt';
import { WidgetRepo } from './widget.repo';
import { toIdentitySecretObject, type IdentitySecretObject } from './widget.schemas';

/** Most identity secrets an agent holds at once (a current one and a few being rotated out). */
const MAX_IDENTITY_SECRETS_PER_AGENT = 5;

/**
 * Who a website visitor is: the agent's identity secrets (HS256, shown once, sealed at rest, rotated with
 * an overlap) and the verification of a visitor JWT against the agent's requirement (`identity`, set with
 * the other widget settings in WidgetSettingsService).
 */
export class VisitorIdentityService {
  private readonly repo = new WidgetRepo();
  private readonly sealKey: Buffer;

  constructor(private readonly deps: { db: Kysely<DB>; agents: AgentsService; serverSecret: string }) {
    this.sealKey = deriveKey(deps.serverSecret, 'identity-secret-seal');
  }

  /**
   * A new identity secret for the agent (the secret is in this answer only). The agent's other secrets keep
   * verifying until removed, or until `expireOthersInSeconds` from now when given (a rotation's overlap).
   */
  async createIdentitySecret(input: Scope & { agentId: string; expireOthersInSeconds?: number }): Promise<IdentitySecretObject> {
    const scope = scopeOf(input);
    await this.deps.agents.getAgent({ ...scope, agentId: input.agentId });
    const current = await this.repo.listIdentitySecrets(this.deps.db, scope, input.agentId);
    const valid = current.filter((s) => s.expires_at === null || s.expires_at > new Date());
    if (valid.length >= MAX_IDENTITY_SECRETS_PER_AGENT) {
      throw new AppError('account_limit_reached', `An agent holds at most ${MAX_IDENTITY_SECRETS_PER_AGENT} valid identity secrets: remove one first`);
    }
    const secret = `isk_${randomBytes(32).toString('base64url')}`;
    const row = await this.deps.db.transaction().execute(async (tx) => {
      const inserted = await this.repo.insertIdentitySecret(tx, {
        id: newId(IdPrefix.identitySecret),
        account_id: input.accountId,
        livemode: input.livemode,
        agent_id: input.agentId,
        secret_sealed: sealText(this.sealKey, secret),
        last4: secret.slice(-4),
      });
      if (input.expireOthersInSeconds !== undefined) {
        await this.repo.expireOtherIdentitySecrets(tx, input.agentId, inserted.id, new Date(Date.now() + input.expireOthersInSeconds * 1000));
      }
      return inserted;
    });
    return toIdentitySecretObject(row, secret);
  }

  async listIdentitySecrets(input: Scope & { agentId: string }) {
    await this.deps.agents.getAgent({ ...scopeOf(input), agentId: input.agentId });
    const rows = await this.repo.listIdentitySecrets(this.deps.db, scopeOf(input), input.agentId);
    return { object: 'list' as const, data: rows.map((r) => toIdentitySecretObject(r)), has_more: false };
  }

  /** Removes a secret: JWTs it signed stop verifying at once. */
  async deleteIdentitySecret(input: Scope & { agentId: string; secretId: string }) {
    const row = await this.repo.deleteIdentitySecret(this.deps.db, scopeOf(input), input.agentId, input.secretId);
    if (!row) throw notFound('identity secret', input.secretId, 'secret_id');
    return { id: row.id, object: 'identity_secret', deleted: true as const };
  }

  /**
   * The customer a visitor JWT names for this agent (401 when it does not verify), or undefined without a
   * JWT, unless the agent requires one (401 identity_token_missing).
   */
  async identify(input: { agentId: string; jwt: string | undefined }): Promise<VisitorIdentity | undefined> {
    if (input.jwt === undefined) {
      const requirement = await this.repo.getAgentIdentityRequirement(this.deps.db, input.agentId);
      if (requirement === 'required') {
        throw new AppError('identity_token_missing', 'This agent requires a signed-in visitor: send the identity JWT your server signed in X-Visitor-Identity');
      }
      return undefined;
    }
    return verifyIdentityJwt({
      token: input.jwt,
      secretOf: async (kid) => {
        const row = await this.repo.getValidIdentitySecret(this.deps.db, input.agentId, kid);
        return row ? openText(this.sealKey, row.secret_sealed) : undefined;
      },
    });
  }
}
