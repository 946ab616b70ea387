import type { RequestHandler } from 'express';
import { roleAtLeast, roleInsufficient, type Role } from '../domain/roles';
import { sessionOf } from './console-page';

/**
 * The one table of what each console route needs (docs/decisions/console-teammates-and-roles.md), checked
 * for every signed-in request by `requireConsoleRole` before any page route runs. Patterns are the
 * router's paths (under /console): `:name` is one segment, `**` the rest of the path. The first matching
 * rule decides; without one, a GET needs `viewer` and anything else `admin`. An `agent` works the inbox
 * (replies, typing, handoffs, closing, claims, notes, saved replies: everything posted under /inbox/),
 * the agents' test chat, and approvals. A key sign-in has its key's role (keys made before roles: owner).
 */
export const CONSOLE_ROLE_RULES: ReadonlyArray<{ method: 'GET' | 'POST'; pattern: string; role: Role }> = [
  { method: 'POST', pattern: '/sign-out', role: 'viewer' },
  // "Add to tests" changes an agent's test cases: setup, not conversation work.
  { method: 'POST', pattern: '/inbox/:id/add-to-tests', role: 'admin' },
  { method: 'POST', pattern: '/inbox/**', role: 'agent' },
  { method: 'POST', pattern: '/agents/:id/test-chat', role: 'agent' },
  { method: 'POST', pattern: '/runs/:id/approvals', role: 'agent' },
];

const matcher = (pattern: string) =>
  new RegExp(`^${pattern.split('/').map((part) => (part === '**' ? '.+' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&'))).join('/')}/?$`);

const COMPILED = CONSOLE_ROLE_RULES.map((r) => ({ ...r, re: matcher(r.pattern) }));

/** The least role a console request needs (method and path under /console). */
export function consoleRoleNeeded(method: string, path: string): Role {
  const m = method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase();
  const rule = COMPILED.find((r) => r.method === m && r.re.test(path));
  if (rule) return rule.role;
  return m === 'GET' ? 'viewer' : 'admin';
}

/** Refuses (403 role_insufficient, the console's error page) a request the session's role does not reach. */
export const requireConsoleRole: RequestHandler = (req, res, next) => {
  const { session } = sessionOf(res);
  const needed = consoleRoleNeeded(req.method, req.path);
  if (!roleAtLeast(session.role, needed)) return next(roleInsufficient(`${req.method === 'GET' ? 'This page' : 'This action'}`, needed, session.role));
  next();
};
