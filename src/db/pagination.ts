import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { AppError } from '../domain/errors';

export interface PageParams {
  limit: number;
  starting_after?: string;
  ending_before?: string;
  created_after?: string;
  created_before?: string;
}

export interface Page<Row> {
  data: Row[];
  has_more: boolean;
}

/**
 * Cursor pagination over (created_at, id), newest first unless `order` is asc. `starting_after` and
 * `ending_before` name an object of the same list (looked up through `qb`, so within the caller's account);
 * any other id is 404 resource_missing, and both at once 422.
 * `qb` must already be scoped to the account and filtered; the table must have `id` and `created_at`.
 */
export async function paginate<Row extends { id: string; created_at: Date }>(
  db: Kysely<any>,
  table: string,
  qb: SelectQueryBuilder<any, any, Row>,
  page: PageParams,
  order: 'asc' | 'desc' = 'desc',
): Promise<Page<Row>> {
  if (page.starting_after && page.ending_before) {
    // Each is valid alone (the schema cannot say "not both"): the combination is unprocessable, not malformed.
    throw new AppError('parameter_unprocessable', 'Pass at most one of starting_after and ending_before', {
      param: 'ending_before',
    });
  }
  let q = qb as SelectQueryBuilder<any, any, Row>;
  const col = (c: string) => sql.ref(`${table}.${c}`);
  if (page.created_after) q = q.where(col('created_at') as any, '>', new Date(page.created_after));
  if (page.created_before) q = q.where(col('created_at') as any, '<', new Date(page.created_before));

  const cursorId = page.starting_after ?? page.ending_before;
  const backwards = Boolean(page.ending_before);
  if (cursorId) {
    // Looked up through `qb`, so only within the caller's account (and the list's filters): an id of
    // another account's object is not a cursor, and its existence does not leak.
    const cursor = await (qb as SelectQueryBuilder<any, any, any>)
      .clearSelect()
      .select(col('id').as('id'))
      .where(col('id') as any, '=', cursorId)
      .limit(1)
      .executeTakeFirst();
    if (!cursor) {
      const param = page.starting_after ? 'starting_after' : 'ending_before';
      throw new AppError('resource_missing', `No such object in this list: '${cursorId}' (${param})`, { param });
    }
    // Walking towards older rows in desc order (or newer in asc order) means "less than" the cursor.
    const less = (order === 'desc') !== backwards;
    // Compared in SQL: timestamptz keeps microseconds, a JS Date would round the cursor to milliseconds.
    q = q.where(
      sql<boolean>`(${col('created_at')}, ${col('id')}) ${sql.raw(less ? '<' : '>')} (select c.created_at, c.id from ${sql.table(table)} c where c.id = ${cursor.id})`,
    );
  }
  const dir = (order === 'desc') !== backwards ? 'desc' : 'asc';
  const rows = (await q
    .orderBy(col('created_at') as any, dir)
    .orderBy(col('id') as any, dir)
    .limit(page.limit + 1)
    .execute()) as Row[];
  const has_more = rows.length > page.limit;
  const data = rows.slice(0, page.limit);
  if (backwards) data.reverse();
  return { data, has_more };
}
