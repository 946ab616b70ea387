import type { Config } from '../config/env';
import type { Logger } from '../observability/logger';
import { createCarriers, SandboxCarrier } from './carriers';
import { SandboxCarrierConfigSchema } from '../config/sms-carriers';
import { CarrierRouter, type CarrierRouterOptions } from './router';

/** The carrier test-mode messages use when the configuration names no sandbox. */
export const TEST_SANDBOX_NAME = 'test-sandbox';

/**
 * The worker's carrier layer: every configured carrier behind one CarrierRouter. The router is a
 * Carrier itself: the SMS area submits through it and the worker calls `start(listener)` at
 * boot and `stop()` at shutdown. The API process may build it too; nothing connects before `start`.
 */
export function createCarrierRouter(
  config: Config,
  log: Logger,
  options: Pick<CarrierRouterOptions, 'attemptTimeoutMs' | 'breaker' | 'now'> = {},
): CarrierRouter {
  const carriers = createCarriers(config, log);
  return new CarrierRouter({
    ...options,
    carriers: carriers.map((carrier, i) => ({
      carrier,
      prefixes: config.sms.carriers[i]!.prefixes,
      priority: config.sms.carriers[i]!.priority,
    })),
    accountCarriers: config.sms.accountCarriers,
    // Test-mode messages need a sandbox even where only real carriers are configured.
    testSandbox: new SandboxCarrier({ config: SandboxCarrierConfigSchema.parse({ name: TEST_SANDBOX_NAME, type: 'sandbox' }), log }),
    log: log.child({ component: 'carrier-router' }),
  });
}
