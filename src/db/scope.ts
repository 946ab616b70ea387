import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Scope } from '../domain/principal';

export type { Scope };

/**
 * The one filter that keeps a query inside a caller's account and mode:
 * `.where(inScope(scope))`, or `.where(inScope(scope, 'messages'))` when a join makes the columns
 * ambiguous. Any other object answers as if it did not exist (404 resource_missing).
 */
export function inScope(scope: Scope, table?: string) {
  const col = (c: string) => sql.ref(table ? `${table}.${c}` : c);
  return (eb: ExpressionBuilder<any, any>): Expression<SqlBool> =>
    eb.and([eb(col('account_id'), '=', scope.accountId), eb(col('livemode'), '=', scope.livemode)]);
}

/** The columns an insert needs to put a row in a scope. */
export function scopeColumns(scope: Scope): { account_id: string; livemode: boolean } {
  return { account_id: scope.accountId, livemode: scope.livemode };
}
