import type { z } from 'zod';
import { agentsConfig } from './agents';
import { databaseConfig } from './database';
import { emailConfig } from './email';
import { embeddingsConfig } from './embeddings';
import { httpConfig } from './http';
import { knowledgeConfig } from './knowledge';
import { limitsConfig } from './limits';
import { serviceConfig } from './service';
import { smsConfig } from './sms';
import { temporalConfig } from './temporal';
import { verificationsConfig } from './verifications';
import { voiceConfig } from './voice';
import { webhooksConfig } from './webhooks';

/**
 * The only reader of process.env. Each concern's slice (config/<concern>.ts) writes each of its variables
 * once: a zod schema whose transform gives the typed value. `loadConfig()` parses every slice once at boot
 * and fails fast with every problem at once; everything else receives the typed Config through its
 * constructor or factory arguments.
 */
export const CONFIG_SLICES = [
  serviceConfig,
  httpConfig,
  databaseConfig,
  temporalConfig,
  webhooksConfig,
  limitsConfig,
  smsConfig,
  verificationsConfig,
  knowledgeConfig,
  embeddingsConfig,
  agentsConfig,
  voiceConfig,
  emailConfig,
] as const;

type SliceValues<T extends readonly z.ZodTypeAny[]> = T extends readonly [infer H extends z.ZodTypeAny, ...infer R extends readonly z.ZodTypeAny[]]
  ? z.output<H> & SliceValues<R>
  : unknown;

export type Config = SliceValues<typeof CONFIG_SLICES> & {
  database: { pgliteDir: string };
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const issues: string[] = [];
  const values: Record<string, unknown>[] = [];
  for (const slice of CONFIG_SLICES) {
    const parsed = slice.safeParse(env);
    if (parsed.success) values.push(parsed.data);
    else issues.push(...parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  if (issues.length > 0) throw new Error(`Invalid environment: ${issues.join('; ')}`);
  const config = Object.assign({}, ...values) as Config;
  // The embedded database lives in the data folder (service slice).
  config.database = { ...config.database, pgliteDir: `${config.dataDir}/pglite` };
  return config;
}

/** The environment for a child process the service starts (the Temporal dev server), plus `extra`. */
export function childProcessEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}
