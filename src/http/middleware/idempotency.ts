import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema';
import type { Logger } from '../../observability/logger';
import { AppError } from '../../domain/errors';
import { retryInBackground } from '../../db/retry-in-background';
import { IdempotencyKeyRepo } from '../idempotency-key.repo';
import { bufferMultipart } from './multipart-body';

export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * An in-progress key older than this is taken to belong to a request whose process died (requests are
 * bounded well below it: statement timeouts, the shutdown grace). A request interrupted in a live
 * process releases its key at once.
 */
const ABANDONED_AFTER_MS = 60 * 1000;
/**
 * A release that failed (the database away: the very reason a request answered 503) is tried again in
 * the background for this long, so the caller's retry finds the key free as soon as the database is back
 * rather than 409 idempotency_key_in_use until the abandoned-key takeover. Well below ABANDONED_AFTER_MS:
 * a late release can never free a key another request took over meanwhile.
 */
const RELEASE_RETRY_MS = 30 * 1000;

const STORE_WITH_EFFECT = 'idempotencyStoreWithEffect';

/** Stores this request's response under its Idempotency-Key, in the caller's transaction. */
export type StoreResponseWithEffect = (tx: Transaction<DB>, status: number, body: unknown) => Promise<void>;

/**
 * For a request with an Idempotency-Key: stores the response in the transaction that makes the change it
 * reports, so the change and its replay commit together (a retry whose first answer was lost replays it
 * instead of doing it again). Undefined without a key. The response must then be sent as stored.
 */
export function responseStoreOf(res: Response): StoreResponseWithEffect | undefined {
  return res.locals[STORE_WITH_EFFECT] as StoreResponseWithEffect | undefined;
}

/**
 * Idempotency-Key on every POST: the same key with the same method, path and body within 24 h replays the
 * first response (Idempotent-Replayed: true); a different request with the key is 422
 * idempotency_key_reused; a request while the first is still running is 409 idempotency_key_in_use.
 * 5xx and 429 answers are not stored, so the caller's retry runs again; neither is an answer that could
 * not be stored, nor a request that ended without one. Multipart bodies are hashed by content. Secret keys
 * and website visitors alike (see ownerOf).
 */
export function idempotency(db: Kysely<DB>, log: Logger, opts: { maxMultipartBytes: number }): RequestHandler {
  const repo = new IdempotencyKeyRepo();
  return async (req, res, next) => {
    const header = req.header('Idempotency-Key');
    const owner = ownerOf(req);
    if (req.method !== 'POST' || !header || !owner) return next();
    const key = `${owner.prefix}:${header}`;
    try {
      if (header.length > 255) {
        throw new AppError('parameter_invalid', 'Idempotency-Key must be at most 255 characters', { param: 'Idempotency-Key' });
      }
      const accountId = owner.accountId;
      // A multipart upload is hashed by its content (read here, handed on to the route's parser).
      if (req.rawBody === undefined && req.is('multipart/form-data')) req.rawBody = await bufferMultipart(req, opts.maxMultipartBytes);
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

      let settled = false;
      // The route may store its response in the transaction of the effect it reports (see responseStoreOf).
      let storedWithEffect: { status: number; body: unknown } | undefined;
      const storeWithEffect: StoreResponseWithEffect = async (tx, status, body) => {
        await repo.storeResponse(tx, accountId, key, { status, body });
        storedWithEffect = { status, body };
      };
      res.locals[STORE_WITH_EFFECT] = storeWithEffect;
      const releaseOnce = () => repo.releaseKey(db, accountId, key, claimed);
      const release = () => {
        const first = releaseOnce();
        first.catch(() =>
          retryInBackground(releaseOnce, {
            forMs: RELEASE_RETRY_MS,
            onGiveUp: () => log.warn({ requestId: req.requestId }, 'Idempotency key still not released; it is taken over once abandoned'),
          }),
        );
        return first;
      };
      // A request that ends without an answer (client gone, server shutting down) frees its key now.
      res.once('close', () => {
        if (!settled) release().catch((err) => log.warn({ err, requestId: req.requestId }, 'Idempotency key release failed'));
      });
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        settled = true;
        const status = res.statusCode;
        if (storedWithEffect && storedWithEffect.status === status && storedWithEffect.body === body) return json(body);
        const keep = status < 500 && status !== 429;
        // A response that cannot be stored must not leave the key blocked: release it instead.
        const write = keep ? repo.storeResponse(db, accountId, key, { status, body }).catch(() => release()) : release();
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

/**
 * Whose key space an Idempotency-Key lives in. A secret key's: its account and mode (as in Stripe: a test
 * request never replays a live response). A website visitor's: their account and mode, narrowed to the
 * publishable key and the visitor, so one visitor's key never replays another visitor's answer.
 */
function ownerOf(req: Request): { accountId: string; prefix: string } | undefined {
  if (req.principal) return { accountId: req.principal.accountId, prefix: req.principal.mode };
  if (req.visitor) return { accountId: req.visitor.accountId, prefix: `${req.visitor.mode}:visitor:${req.visitor.keyId}:${req.visitor.visitorId}` };
  return undefined;
}

/**
 * Deletes keys past the 24 h replay window now and every `everyMs` (the API process runs it; a key past
 * the window is free already, this keeps the table small). Returns the function that stops it.
 */
export function startIdempotencySweep(db: Kysely<DB>, log: Logger, everyMs = 60 * 60 * 1000): () => void {
  const repo = new IdempotencyKeyRepo();
  const sweep = () =>
    repo.deleteExpired(db, REPLAY_WINDOW_MS).then(
      (deleted) => deleted > 0 && log.info({ deleted }, 'Expired idempotency keys deleted'),
      (err) => log.warn({ err }, 'Idempotency key sweep failed'),
    );
  void sweep();
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
