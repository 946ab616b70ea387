import { AppError } from './errors';

/**
 * A teammate's role, and an API key's: owner > admin > agent > viewer. A viewer reads; an agent also works
 * conversations (replies, handoffs, approvals); an admin also changes the account's setup (agents,
 * knowledge, numbers, webhooks, keys, teammates); an owner also manages owners. The route tables that
 * apply them are console/console-roles.ts and http/api-roles.ts.
 */
export const ROLES = ['viewer', 'agent', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/** The roles that may be named as a tool's approvers (a viewer never approves). */
export const APPROVER_ROLES = ['agent', 'admin', 'owner'] as const satisfies readonly Role[];

const rank = (role: Role) => ROLES.indexOf(role);

/** Whether `role` is `needed` or above it. */
export const roleAtLeast = (role: Role, needed: Role): boolean => rank(role) >= rank(needed);

export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

/** 403 role_insufficient: what was refused and the role it needs. */
export const roleInsufficient = (what: string, needed: Role, has: Role) =>
  new AppError('role_insufficient', `${what} needs the ${needed} role or above (this has ${has})`);

/**
 * Who did something a person does (a human reply, an approval): a console teammate (id `cu_…`, their
 * display name) or an API key (id `key_…`; a console signed in with a key writes as it, named "Support team").
 */
export interface Actor {
  /** evaluation: an evaluation's scripted approval (its test case says approve or reject). */
  type: 'teammate' | 'api_key' | 'evaluation';
  id: string;
  name: string | null;
}
/** The author of a human transcript message. */
export type MessageAuthor = Actor;
/** Who approved or rejected a tool call. */
export type Approver = Actor;
