import { z } from 'zod';

/** A boolean env var: true|1|yes, false|0|no or empty. */
export const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

