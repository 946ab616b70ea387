import type { ColumnType } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './accounts';

type WithDefault<T> = ColumnType<T, T | undefined, T>;

export interface KnowledgeBaseTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  name: string;
  description: string | null;
  metadata: Json<Record<string, string>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type KnowledgeFileFormat = 'pdf' | 'docx' | 'html' | 'markdown' | 'text';

export interface KnowledgeFileTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  filename: string;
  content_type: string;
  format: KnowledgeFileFormat;
  bytes: number;
  data: Buffer;
  created_at: Timestamp;
}

export type KnowledgeSourceType = 'url' | 'document' | 'record' | 'api';
export type KnowledgeSourceStatus = 'indexing' | 'ready' | 'failed';
export type KnowledgeRefresh = 'daily' | 'weekly' | 'manual';

export interface KnowledgeRecordInput {
  title: string;
  content: string;
  url?: string;
  metadata?: Record<string, string>;
}

export interface KnowledgeSourceTable {
  id: string;
  account_id: string;
  knowledge_base_id: string;
  type: KnowledgeSourceType;
  /** Live-mode sources must fetch over https. */
  livemode: boolean;
  url: string | null;
  file_id: string | null;
  /** Records of a record source (knowledge_records rows); null for other types. */
  record_count: number | null;
  refresh: KnowledgeRefresh;
  metadata: Json<Record<string, string>>;
  timeout_ms: number | null;
  status: KnowledgeSourceStatus;
  error_code: string | null;
  error_message: string | null;
  /** Last version number handed to a sync (versions are built beside the live one). */
  sync_seq: WithDefault<number>;
  /** The version queries read; null until the first sync succeeds. */
  active_version: number | null;
  passage_count: WithDefault<number>;
  /** Sum of passage lengths (in index terms) of the active version: BM25's average document length. */
  total_length: WithDefault<number>;
  /** Passages of the active version that have a vector of the configured model (backfilled after `ready`). */
  embedded_passages: WithDefault<number>;
  /** Text search configurations the active version was indexed with (by passage locale). */
  analyzers: WithDefault<string[]>;
  last_synced_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface KnowledgePassageTable {
  source_id: string;
  version: number;
  ordinal: number;
  knowledge_base_id: string;
  title: string;
  heading: string | null;
  url: string | null;
  content: string;
  metadata: Json<Record<string, string>>;
  /** Length in index terms (sum of term frequencies). */
  length: number;
  /** SHA-256 of the text the passage is embedded from (passageEmbeddingText); its vector's key. */
  content_hash: Buffer | null;
  /** The record's own metadata (record sources), overlaid on the source's by filters and results. */
  own_metadata: ColumnType<Record<string, string>, string | undefined, string>;
  /** The record the passage was cut from (record sources); null for other types and for passages indexed before records had ids. */
  record_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** One record of a record source (`rec_…`): what the sync and a one-record re-index read. */
export interface KnowledgeRecordTable {
  id: string;
  source_id: string;
  title: string;
  content: string;
  url: string | null;
  metadata: Json<Record<string, string>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/**
 * A passage vector, shared by every passage of the source with the same content hash and kept across
 * versions (a re-sync embeds only what changed). `vec` is the unit vector as little-endian float32;
 * `bits` its signs, for the binary scan that proposes dense candidates.
 */
export interface KnowledgeEmbeddingTable {
  source_id: string;
  model: string;
  content_hash: Buffer;
  dims: number;
  bits: string;
  vec: Buffer;
  /**
   * The passage's sentence vectors, `dims` little-endian float32 each, one after another; empty: one
   * sentence (the passage vector stands for it); null: not computed yet.
   */
  sentence_vecs: Buffer | null;
}

/**
 * The inverted index: one row per (source version, term) holding its posting list as parallel arrays,
 * impact-ordered (highest BM25 term-frequency component first) so a query can read the head of a long
 * list and skip its low-impact tail. `df` is the list's length, read without touching the arrays.
 */
export interface KnowledgeTermTable {
  source_id: string;
  version: number;
  term: string;
  df: number;
  ords: number[];
  imps: number[];
}

/** A customer question's vector, embedded once by the knowledge-gap report (keyed by model and sha256 of the text). */
export interface KnowledgeQuestionVectorTable {
  model: string;
  text_hash: Buffer;
  vec: Buffer;
  created_at: ColumnType<Date, Date | undefined, never>;
}
