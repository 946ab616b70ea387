import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema';
import type { Logger } from '../../observability/logger';
import { AppError } from '../../domain/errors';

const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** An in-progress key older than this is taken to belong to a request whose process died. */
const ABANDONED_AFTER_MS = 5 * 60 * 1000;

/**
 * Idempotency-Key on every POST: the same key with the same method, path and body within 24 h replays the
 * first response (Idempotent-Replayed: true); a different request with the key is 422
 * idempotency_key_reused; a request while the first is still running is 409 idempotency_key_in_use.
 * 5xx and 429 answers are not stored, so the caller's retry runs again.
 */
export function idempotency(db: Kysely<DB>, log: Logger): RequestHandler {
  return async (req, res, next) => {
    const key = req.header('Idempotency-Key');
    if (req.method !== 'POST' || !key || !req.principal) return next();
    try {
      if (key.length > 255) {
        throw new AppError('parameter_invalid', 'Idempotency-Key must be at most 255 characters', { param: 'Idempotency-Key' });
      }
      const accountId = req.principal.accountId;
      const requestHash = createHash('sha256')
        .update(req.method)
        .update('\0')
        .update(req.path)
        .update('\0')
        .update(req.rawBody ?? Buffer.alloc(0))
        .digest('hex');

      const claimed = await db
        .insertInto('idempotency_keys')
        .values({
          account_id: accountId,
          key,
          request_method: req.method,
          request_path: req.path,
          request_hash: requestHash,
          state: 'in_progress',
          response_status: null,
          response_body: null,
        })
        .onConflict((oc) =>
          oc.columns(['account_id', 'key']).doUpdateSet({
            request_method: req.method,
            request_path: req.path,
            request_hash: requestHash,
            state: 'in_progress',
            response_status: null,
            response_body: null,
            created_at: sql`now()`,
          }).where(({ or, eb }) =>
            or([
              eb('idempotency_keys.created_at', '<', new Date(Date.now() - REPLAY_WINDOW_MS)),
              eb.and([
                eb('idempotency_keys.state', '=', 'in_progress'),
                eb('idempotency_keys.created_at', '<', new Date(Date.now() - ABANDONED_AFTER_MS)),
              ]),
            ]),
          ),
        )
        .returning('key')
        .executeTakeFirst();

      if (!claimed) {
        const existing = await db
          .selectFrom('idempotency_keys')
          .selectAll()
          .where('account_id', '=', accountId)
          .where('key', '=', key)
          .executeTakeFirstOrThrow();
        if (existing.request_hash !== requestHash) {
          throw new AppError(
            'idempotency_key_reused',
            `Keys for idempotent requests can only be used with the same parameters they were first used with. This key was used with ${existing.request_method} ${existing.request_path} and other parameters.`,
            { param: 'Idempotency-Key' },
          );
        }
        if (existing.state === 'in_progress') {
          throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry later', {
            param: 'Idempotency-Key',
          });
        }
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(existing.response_status ?? 200).json(existing.response_body);
        return;
      }

      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        const status = res.statusCode;
        const keep = status < 500 && status !== 429;
        const write = keep
          ? db
              .updateTable('idempotency_keys')
              .set({ state: 'done', response_status: status, response_body: JSON.stringify(body) })
              .where('account_id', '=', accountId)
              .where('key', '=', key)
              .execute()
          : db.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('key', '=', key).execute();
        write.then(
          () => json(body),
          (err) => {
            log.error({ err, requestId: req.requestId }, 'Idempotency record failed');
            json(body);
          },
        );
        return res;
      };
      next();
    } catch (err) {
      next(err);
    }
  };
}
