import { isRole } from '../domain/roles';
import type { CliArgs } from './cli-args';
import type { CliServices } from './cli-services';

/**
 * `teammates create-owner|invite`: an invite link (signed, single-use, expiring) for a console user of the
 * account, printed to hand over (and emailed when SMTP is configured). `create-owner` makes the first
 * owner of an account; `invite` any role. The operator acts as an owner. What to print (JSON), or null
 * when the arguments make no command.
 */
export async function runTeammatesCommand(services: Pick<CliServices, 'teammates' | 'accounts'>, args: CliArgs): Promise<string | null> {
  const { action, values } = args;
  if (!values.account || !values.email) return null;
  const role = action === 'create-owner' ? 'owner' : action === 'invite' ? (values.role ?? 'agent') : undefined;
  if (role === undefined) return null;
  if (!isRole(role)) throw new Error(`--role is one of owner, admin, agent, viewer (got ${role})`);
  await services.accounts.getAccount({ accountId: values.account });
  const invite = await services.teammates.invite({ accountId: values.account, actor: { role: 'owner', userId: null }, email: values.email, role });
  return JSON.stringify({ invite_id: invite.id, email: values.email, role, url: invite.url, expires_at: invite.expiresAt.toISOString(), emailed: invite.emailed }, null, 2);
}
