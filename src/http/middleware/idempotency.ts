import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema';
import type { Logger } from '../../observability/logger';
import { AppError } from '../../domain/errors';
import { IdempotencyKeyRepo } from '../idempotency-key.repo';

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
  const repo = new IdempotencyKeyRepo();
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

      const claimed = await repo.claimKey(db, {
        accountId,
        key,
        method: req.method,
        path: req.path,
        requestHash,
        replayWindowMs: REPLAY_WINDOW_MS,
        abandonedAfterMs: ABANDONED_AFTER_MS,
      });

      if (!claimed) {
        const existing = await repo.getKey(db, accountId, key);
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
          ? repo.storeResponse(db, accountId, key, { status, body })
          : repo.releaseKey(db, accountId, key);
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
