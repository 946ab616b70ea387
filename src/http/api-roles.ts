import { roleAtLeast, roleInsufficient, type Role } from '../domain/roles';

/**
 * The one table of what an API key's role may call (docs/decisions/console-teammates-and-roles.md): by
 * default a GET needs `viewer` (reads) and anything else `admin` (changes to the account's setup and
 * sends); the exceptions an `agent` key may call work conversations: messages, handoffs, closing, and
 * approving tool calls. Owners and admins may call everything. The first matching rule decides.
 */
export const API_ROLE_RULES: ReadonlyArray<{ method: 'get' | 'post' | 'delete'; path: string; role: Role }> = [
  { method: 'post', path: '/v1/conversations/{id}/messages', role: 'agent' },
  { method: 'post', path: '/v1/conversations/{id}/handoff/close', role: 'agent' },
  { method: 'post', path: '/v1/conversations/{id}/close', role: 'agent' },
  { method: 'post', path: '/v1/runs/{id}/approvals', role: 'agent' },
];

/** The least role a key needs for an operation (its method and OpenAPI path template). */
export function apiRoleNeeded(method: string, path: string): Role {
  const m = method.toLowerCase();
  const rule = API_ROLE_RULES.find((r) => r.method === m && r.path === path);
  if (rule) return rule.role;
  return m === 'get' || m === 'head' ? 'viewer' : 'admin';
}

/** Refuses (403 role_insufficient) a key whose role is below what the operation needs; keys without a role are the service's own (owner). */
export function requireApiRole(role: Role | undefined, method: string, path: string): void {
  const needed = apiRoleNeeded(method, path);
  const has = role ?? 'owner';
  if (!roleAtLeast(has, needed)) throw roleInsufficient(`${method.toUpperCase()} ${path}`, needed, has);
}
