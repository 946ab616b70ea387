import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema';
import { insertWithinCap } from '../accounts/account-quotas';
import { AppError, notFound } from '../domain/errors';
import { IdPrefix, newId } from '../domain/ids';
import { roleAtLeast, roleInsufficient, type Role } from '../domain/roles';
import type { SmtpSenderPort } from '../channels/email/smtp-sender';
import type { Logger } from '../observability/logger';
import type { ConsoleSessionsService } from './console-sessions.service';
import { TeammatesRepo } from './teammates.repo';

/** How long an invite link may wait to be opened. */
export const INVITE_TTL_MS = 7 * 24 * 3600_000;
/** Open invites an account keeps at once (the Team page lists them all). */
export const MAX_OPEN_INVITES = 100;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** Who changes the team: a teammate (their id and role) or a key sign-in / the CLI (no user, the key's role). */
export interface TeamActor {
  role: Role;
  userId: string | null;
}

export interface Teammate {
  id: string;
  email: string;
  displayName: string;
  role: Role;
  disabled: boolean;
  createdAt: Date;
}

/**
 * The console's teammates (docs/decisions/console-teammates-and-roles.md): invites by a signed,
 * single-use, expiring link (`/console/invites/<token>`: the token is random, HMAC-signed with the server
 * secret so a forged one costs no query, and kept only as its SHA-256), accepted with a password (scrypt,
 * ConsoleSessionsService) and a display name; roles changed, teammates disabled or removed (their sessions
 * end at once). Nobody grants a role above their own, an admin never changes an owner, and the account's
 * last enabled owner cannot be demoted, disabled or removed.
 */
export class TeammatesService {
  private readonly repo = new TeammatesRepo();

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      consoleSessions: ConsoleSessionsService;
      serverSecret: string;
      publicBaseUrl: string;
      /** Sends invites by email when SMTP is configured (else the link is only shown to copy). */
      mail?: { sender: SmtpSenderPort; from: string; messageIdDomain: string };
      log?: Logger;
    },
  ) {}

  async listTeam(input: { accountId: string }) {
    const [users, invites] = await Promise.all([this.repo.listTeammates(this.deps.db, input.accountId), this.repo.listOpenInvites(this.deps.db, input.accountId, MAX_OPEN_INVITES)]);
    const teammates: Teammate[] = users.map((u) => ({ id: u.id, email: u.email, displayName: u.display_name || u.email, role: u.role, disabled: u.disabled_at !== null, createdAt: u.created_at }));
    return { teammates, invites: invites.map((i) => ({ id: i.id, email: i.email, role: i.role, expiresAt: i.expires_at })) };
  }

  /** What the console calls each teammate (disabled ones too): their display name, else their email, by user id. */
  async displayNames(input: { accountId: string }): Promise<Map<string, string>> {
    return new Map((await this.repo.listTeammates(this.deps.db, input.accountId)).map((u) => [u.id, u.display_name || u.email]));
  }

  /**
   * Invites `email` with `role` (at most the inviter's). Returns the link (shown once to copy) and whether
   * it was emailed. An address that is a console user already is refused. `sandbox`: asked from a console
   * signed in with a test key, which never reaches a real relay (as test-mode email replies are never sent):
   * the link is only shown to copy.
   */
  async invite(input: { accountId: string; actor: TeamActor; email: string; role: Role; sandbox?: boolean }): Promise<{ id: string; url: string; expiresAt: Date; emailed: boolean }> {
    const email = input.email.trim();
    if (!EMAIL.test(email)) throw new AppError('parameter_invalid', 'Enter the teammate\'s email address', { param: 'email' });
    this.mayGrant(input.actor, input.role);
    if (await this.repo.emailTaken(this.deps.db, email)) throw new AppError('resource_conflict', `${email} signs in to a console already`, { param: 'email' });
    const id = newId(IdPrefix.invite);
    const random = randomBytes(24).toString('base64url');
    const token = `${random}.${this.sign(random)}`;
    const expiresAt = new Date(Date.now() + INVITE_TTL_MS);
    await insertWithinCap(this.deps.db, {
      list: 'open_invites',
      key: input.accountId,
      cap: MAX_OPEN_INVITES,
      count: async (trx) => (await this.repo.listOpenInvites(trx, input.accountId, MAX_OPEN_INVITES)).length,
      refusal: () => new AppError('parameter_unprocessable', `An account has at most ${MAX_OPEN_INVITES} open invites: revoke some first`, { param: 'email' }),
    }, (trx) => this.repo.insertInvite(trx, { id, account_id: input.accountId, email, role: input.role, token_hash: hashToken(token), invited_by: input.actor.userId, expires_at: expiresAt }));
    const url = `${this.deps.publicBaseUrl}/console/invites/${token}`;
    return { id, url, expiresAt, emailed: input.sandbox ? false : await this.mailInvite(email, input.role, url, expiresAt) };
  }

  /** The open invite a link names (for the accept page), or undefined when forged, used, revoked or expired. */
  async openInvite(input: { token: string }) {
    if (!this.verified(input.token)) return undefined;
    const invite = await this.repo.getOpenInviteByHash(this.deps.db, hashToken(input.token));
    return invite && { id: invite.id, email: invite.email, role: invite.role, accountName: invite.account_name, expiresAt: invite.expires_at };
  }

  /**
   * Accepts an invite: spends it (once: a second acceptance finds it used) and makes the console user with
   * the invite's email and role, the chosen display name and password. Returns the new user's email for signing in.
   */
  async acceptInvite(input: { token: string; displayName: string; password: string }): Promise<{ userId: string; email: string }> {
    const displayName = input.displayName.trim();
    if (displayName.length < 1 || displayName.length > 80) throw new AppError('parameter_invalid', 'A display name has 1 to 80 characters', { param: 'display_name' });
    if (input.password.length < 10) throw new AppError('parameter_invalid', 'A console password has at least 10 characters', { param: 'password' });
    if (!this.verified(input.token)) throw inviteGone();
    const spent = await this.repo.spendInvite(this.deps.db, hashToken(input.token));
    if (!spent) throw inviteGone();
    const user = await this.deps.consoleSessions.createUser({ accountId: spent.account_id, email: spent.email, password: input.password, role: spent.role, displayName });
    return { userId: user.id, email: user.email };
  }

  async revokeInvite(input: { accountId: string; actor: TeamActor; inviteId: string }) {
    const revoked = await this.repo.revokeInvite(this.deps.db, input.accountId, input.inviteId);
    if (!revoked) throw notFound('invite', input.inviteId);
  }

  /** Gives a teammate another role: at most the actor's; an owner's role only by an owner; never the last owner's. */
  async changeRole(input: { accountId: string; actor: TeamActor; userId: string; role: Role }) {
    this.mayGrant(input.actor, input.role);
    await this.change(input, async (tx, target, owners) => {
      if (target.role === 'owner' && input.role !== 'owner') lastOwnerGuard(owners, target.id, 'demoted');
      await this.repo.setRole(tx, input.accountId, target.id, input.role);
    });
  }

  /** Disables (their sessions end at once) or enables a teammate. */
  async setDisabled(input: { accountId: string; actor: TeamActor; userId: string; disabled: boolean }) {
    await this.change(input, async (tx, target, owners) => {
      if (input.disabled && target.role === 'owner') lastOwnerGuard(owners, target.id, 'disabled');
      await this.repo.setDisabled(tx, input.accountId, target.id, input.disabled);
      if (input.disabled) await this.repo.deleteSessionsOfUser(tx, target.id);
    });
  }

  /** Removes a teammate; their sessions end at once. */
  async remove(input: { accountId: string; actor: TeamActor; userId: string }) {
    await this.change(input, async (tx, target, owners) => {
      if (target.role === 'owner') lastOwnerGuard(owners, target.id, 'removed');
      await this.repo.deleteSessionsOfUser(tx, target.id);
      await this.repo.deleteTeammate(tx, input.accountId, target.id);
    });
  }

  /** A change to one teammate, serialised per account, after the actor's rights over them are checked. */
  private async change(
    input: { accountId: string; actor: TeamActor; userId: string },
    apply: (tx: Transaction<DB>, target: { id: string; role: Role }, owners: string[]) => Promise<void>,
  ) {
    await this.deps.db.transaction().execute(async (tx) => {
      await this.repo.lockAccount(tx, input.accountId);
      const target = await this.repo.getTeammate(tx, input.accountId, input.userId);
      if (!target) throw notFound('teammate', input.userId);
      // An admin changes admins, agents and viewers; only an owner changes an owner.
      if (!roleAtLeast(input.actor.role, target.role)) throw roleInsufficient(`Changing a teammate with the ${target.role} role`, target.role, input.actor.role);
      const owners = await this.repo.lockEnabledOwners(tx, input.accountId);
      await apply(tx, target, owners);
    });
  }

  /** Nobody grants a role above their own, and only admins and owners grant any. */
  private mayGrant(actor: TeamActor, role: Role) {
    if (!roleAtLeast(actor.role, 'admin')) throw roleInsufficient('Managing teammates', 'admin', actor.role);
    if (!roleAtLeast(actor.role, role)) throw roleInsufficient(`Granting the ${role} role`, role, actor.role);
  }

  private sign(random: string) {
    return createHmac('sha256', this.deps.serverSecret).update(`console-invite:${random}`).digest('base64url');
  }

  private verified(token: string): boolean {
    const [random, sig, extra] = token.split('.');
    if (!random || !sig || extra !== undefined || token.length > 200) return false;
    const expected = Buffer.from(this.sign(random));
    const got = Buffer.from(sig);
    return got.length === expected.length && timingSafeEqual(got, expected);
  }

  /** Emails the link when SMTP is configured; false when it is not, or the relay did not take it (the link is shown anyway). */
  private async mailInvite(to: string, role: Role, url: string, expiresAt: Date): Promise<boolean> {
    const mail = this.deps.mail;
    if (!mail) return false;
    const text = `You are invited to the Converse console as ${role}.\n\nOpen this link to choose your name and password (it works once, until ${expiresAt.toISOString()}):\n${url}\n`;
    try {
      const outcome = await mail.sender.send({
        from: { address: mail.from, name: 'Converse console' },
        to,
        subject: 'Your invite to the Converse console',
        messageId: `${newId(IdPrefix.invite)}@${mail.messageIdDomain}`,
        text,
        html: `<p>You are invited to the Converse console as <b>${role}</b>.</p><p><a href="${url}">Accept the invite</a> (it works once, until ${expiresAt.toISOString()}).</p>`,
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
      return outcome.outcome === 'accepted';
    } catch (err) {
      this.deps.log?.warn({ err }, 'Emailing a console invite failed');
      return false;
    }
  }
}

const inviteGone = () => new AppError('resource_missing', 'This invite link was used already, was revoked or has expired: ask for a new one');

function lastOwnerGuard(owners: string[], targetId: string, what: string) {
  if (owners.filter((id) => id !== targetId).length === 0) throw new AppError('resource_conflict', `The account's last owner cannot be ${what}: make another teammate an owner first`);
}
