import type { Config } from '../../config/env';
import type { Logger } from '../../observability/logger';
import type { Carrier } from '../carrier';
import type { CarrierConfig } from '../../config/sms-carriers';
import { SandboxCarrier } from './sandbox.carrier';
import { SmppCarrier } from './smpp.carrier';

export { SANDBOX_MAGIC_NUMBERS, SandboxCarrier } from './sandbox.carrier';
export { SmppCarrier } from './smpp.carrier';

/** One carrier from its configuration. Nothing connects until `start()`. */
export function createCarrier(config: CarrierConfig, log: Logger): Carrier {
  switch (config.type) {
    case 'sandbox':
      return new SandboxCarrier({ config, log });
    case 'smpp':
      return new SmppCarrier({ config, log });
  }
}

/** Every configured carrier (config.sms.carriers), in configuration order. */
export function createCarriers(config: Config, log: Logger): Carrier[] {
  return config.sms.carriers.map((c) => createCarrier(c, log));
}
