import { loadConfig, type Config } from '../../src/config/env';

/** DATABASE_URL of the real PostgreSQL server the suite runs against. */
export const TEST_DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** A Config for tests: built from explicit values, never from the process environment. */
export function buildTestConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    ALLOW_PRIVATE_NETWORK: 'true',
    DATABASE_URL: TEST_DATABASE_URL,
    TEMPORAL_TASK_QUEUE: `test-${Math.random().toString(36).slice(2, 10)}`,
    WEBHOOK_TIMEOUT_MS: '2000',
    RATE_LIMIT_PER_SECOND: '1000',
    ANONYMOUS_RATE_LIMIT_PER_SECOND: '1000',
    MAX_WEBHOOK_ENDPOINTS_PER_ACCOUNT: '1000',
    MAX_API_SOURCES_PER_ACCOUNT: '1000',
    // Lexical retrieval unless a test starts an embedding server (test/support/embeddings.ts).
    EMBEDDINGS: 'off',
  });
  return { ...base, ...overrides };
}
