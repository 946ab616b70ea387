import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Express, type RequestHandler } from 'express';
import { AppError } from '../domain/errors';
import { errorHandler, routeNotFound } from '../http/middleware/error-handler';
import { requestId } from '../http/middleware/request-id';
import { toRequestError } from '../http/route';
import type { Logger } from '../observability/logger';
import { runCliCommand } from './cli-commands';
import type { CliServices } from './cli-services';
import { isLoopbackAddress, MAX_FORWARDED_FILE_BYTES, MAX_FORWARDED_FILES, OPERATOR_CLI_PATH, OperatorCommandSchema, type OperatorCommandResult } from './operator-command';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Only the operator: a caller on the loopback interface (the socket's own address; a request that came
 * through a proxy, which says so in Forwarded/X-Forwarded-For, is refused too) presenting the token of the
 * data folder's lock, compared in constant time. Checked before the body is read.
 */
function operatorOnly(token: string): RequestHandler {
  const expected = digest(token);
  return (req, _res, next) => {
    if (!isLoopbackAddress(req.socket.remoteAddress) || req.headers.forwarded !== undefined || req.headers['x-forwarded-for'] !== undefined) {
      return next(new AppError('permission_denied', 'The operator endpoint answers callers on this machine only'));
    }
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '');
    if (!m) return next(new AppError('operator_token_missing', 'Send the operator token from the data folder\'s lock file: Authorization: Bearer <token>'));
    if (!timingSafeEqual(digest(m[1]!), expected)) return next(new AppError('operator_token_invalid', 'Invalid operator token'));
    next();
  };
}

/**
 * The operator endpoint (not part of the public API, not in its OpenAPI document): runs a CLI command in
 * this process, on its services and database, as `npm run cli` would, and answers what it printed. The
 * files the command names come in the body (the service never reads the operator's disk).
 */
export function createOperatorApp(deps: { services: CliServices; token: string; log: Logger }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId);
  app.post(OPERATOR_CLI_PATH, operatorOnly(deps.token), express.json({ limit: MAX_FORWARDED_FILES * MAX_FORWARDED_FILE_BYTES + 100_000 }), async (req, res, next) => {
    try {
      const parsed = OperatorCommandSchema.safeParse(req.body ?? {});
      if (!parsed.success) throw toRequestError(parsed.error, 'body');
      const { argv, files } = parsed.data;
      if (Object.keys(files).length > MAX_FORWARDED_FILES) {
        throw new AppError('parameter_invalid', `At most ${MAX_FORWARDED_FILES} files travel with a command`, { param: 'files' });
      }
      deps.log.info({ requestId: req.requestId, command: argv.slice(0, 2).join(' ') }, 'Operator command');
      const readFile = async (file: string) => {
        const text = files[file];
        if (text === undefined) throw new AppError('parameter_invalid', `Cannot read ${file}: the CLI did not send it (not a readable file on the operator's side)`);
        return text;
      };
      const result = await runCliCommand(argv, deps.services, { readFile });
      res.json({ stdout: result.stdout, stderr: result.stderr, exit_code: result.exitCode } satisfies OperatorCommandResult);
    } catch (err) {
      next(err);
    }
  });
  app.use(routeNotFound);
  app.use(errorHandler(deps.log));
  return app;
}
