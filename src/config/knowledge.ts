import { z } from 'zod';

/** Knowledge ingestion: crawl caps, fetch and api-source timeouts, upload cap, chunking, document parsing. */
export const knowledgeConfig = z
  .object({
    /** Crawl caps for url sources, per-request timeout, upload cap, chunk size, api-source timeout. */
    KNOWLEDGE_CRAWL_MAX_PAGES: z.coerce.number().int().positive().default(50),
    KNOWLEDGE_CRAWL_MAX_DEPTH: z.coerce.number().int().min(0).default(3),
    KNOWLEDGE_FETCH_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    KNOWLEDGE_MAX_FILE_BYTES: z.coerce.number().int().positive().default(20_000_000),
    KNOWLEDGE_CHUNK_MAX_CHARS: z.coerce.number().int().min(200).default(2000),
    KNOWLEDGE_CHUNK_OVERLAP_CHARS: z.coerce.number().int().min(0).default(200),
    KNOWLEDGE_API_TIMEOUT_MS: z.coerce.number().int().positive().default(3000),
    /** Document parsing (off the event loop): inflated DOCX size, PDF pages, time and heap per parse, parses at once. */
    KNOWLEDGE_MAX_INFLATED_BYTES: z.coerce.number().int().positive().default(100_000_000),
    KNOWLEDGE_MAX_PAGES: z.coerce.number().int().positive().default(1000),
    KNOWLEDGE_PARSE_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
    KNOWLEDGE_PARSE_MEMORY_MB: z.coerce.number().int().min(16).default(512),
    KNOWLEDGE_PARSE_CONCURRENCY: z.coerce.number().int().positive().default(2),
  })
  .transform((e) => ({
    knowledge: {
      crawlMaxPages: e.KNOWLEDGE_CRAWL_MAX_PAGES,
      crawlMaxDepth: e.KNOWLEDGE_CRAWL_MAX_DEPTH,
      fetchTimeoutMs: e.KNOWLEDGE_FETCH_TIMEOUT_MS,
      maxFileBytes: e.KNOWLEDGE_MAX_FILE_BYTES,
      chunkMaxChars: e.KNOWLEDGE_CHUNK_MAX_CHARS,
      chunkOverlapChars: e.KNOWLEDGE_CHUNK_OVERLAP_CHARS,
      apiTimeoutMs: e.KNOWLEDGE_API_TIMEOUT_MS,
      maxInflatedBytes: e.KNOWLEDGE_MAX_INFLATED_BYTES,
      maxPages: e.KNOWLEDGE_MAX_PAGES,
      parseTimeoutMs: e.KNOWLEDGE_PARSE_TIMEOUT_MS,
      parseMemoryMb: e.KNOWLEDGE_PARSE_MEMORY_MB,
      parseConcurrency: e.KNOWLEDGE_PARSE_CONCURRENCY,
    },
  }));
