import type { CliArgs } from './cli-args';
import type { CliServices } from './cli-services';

/** The longest demo period (days of traffic written at once). */
const MAX_DAYS = 90;

/**
 * `demo traffic [--days N] [--account acct_…] [--remove]`: writes (or, with --remove, deletes) plausible
 * conversations of the example agent over the last N days (default 14), so the console's charts and
 * knowledge gaps have something to show. Returns what to print, or null for usage.
 */
export async function runDemoCommand(services: Pick<CliServices, 'demoTraffic'>, args: CliArgs): Promise<string | null> {
  if (args.action !== 'traffic') return null;
  const accountId = args.values.account;
  if (args.values.remove) return JSON.stringify(await services.demoTraffic.remove({ accountId }), null, 2);
  const days = args.values.days === undefined ? 14 : Number(args.values.days);
  if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS) throw new Error(`--days must be a whole number from 1 to ${MAX_DAYS}`);
  const written = await services.demoTraffic.generate({ accountId, days });
  return JSON.stringify({ ...written, days, remove_with: 'npm run cli -- demo traffic --remove' }, null, 2);
}
