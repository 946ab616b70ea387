import { DefaultLogger, makeTelemetryFilterString, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../observability/logger';

let installed = false;

/**
 * Routes the Temporal SDK's own logs (worker, core) into our pino logger at `level` and above; once per
 * process, before any worker or connection is created.
 */
export function installTemporalLogging(log: Logger | undefined, level: LogLevel = 'WARN'): void {
  if (installed) return;
  installed = true;
  const logger = log
    ? new DefaultLogger(level, (entry) => {
        const fn = entry.level === 'ERROR' ? log.error : entry.level === 'WARN' ? log.warn : entry.level === 'INFO' ? log.info : log.debug;
        fn.call(log, { temporal: entry.meta }, entry.message);
      })
    : new DefaultLogger(level);
  Runtime.install({
    logger,
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: level, other: 'ERROR' }), forward: {} } },
  });
}
