import { z } from 'zod';

/** Agents: the planner provider, how long posting a message waits for its run, evaluations' concurrency. */
export const agentsConfig = z
  .object({
    /** Agents' planner: `local` (no network, deterministic), `openai` (any compatible endpoint) or `anthropic`. */
    PLANNER_PROVIDER: z.enum(['local', 'openai', 'anthropic']).default('local'),
    PLANNER_BASE_URL: z.string().url().optional(),
    PLANNER_API_KEY: z.string().optional(),
    PLANNER_MODEL: z.string().optional(),
    PLANNER_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
    /** How long POST …/messages waits for its run to settle when the caller gives no wait_ms. */
    RUN_WAIT_MS_DEFAULT: z.coerce.number().int().min(0).max(60_000).default(20_000),
    /** How many test cases of one evaluation run at once. */
    EVALUATION_CONCURRENCY: z.coerce.number().int().min(1).max(200).default(16),
  })
  .transform((e) => ({
    planner: {
      provider: e.PLANNER_PROVIDER,
      baseUrl: (e.PLANNER_BASE_URL || undefined) as string | undefined,
      apiKey: (e.PLANNER_API_KEY || undefined) as string | undefined,
      model: (e.PLANNER_MODEL || undefined) as string | undefined,
      timeoutMs: e.PLANNER_TIMEOUT_MS,
    },
    runs: { waitMsDefault: e.RUN_WAIT_MS_DEFAULT },
    evaluations: { concurrency: e.EVALUATION_CONCURRENCY },
  }));
