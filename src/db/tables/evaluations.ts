import type { ColumnType } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './accounts';

/** One test case of an agent: its definition (turns, expectations, declared tool results) as TestCaseDefinition. */
export interface AgentTestCaseTable {
  id: string;
  account_id: string;
  /** Test or live mode (see docs/decisions/modes-test-and-live.md). */
  livemode: boolean;
  agent_id: string;
  /** Unique per agent: `agents apply` matches a file's tests to stored cases by name. */
  name: string;
  definition: Json<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type EvaluationStatus = 'running' | 'completed';

/** One evaluation: some cases of an agent run against one version (a draft snapshot has a negative number). */
export interface EvaluationTable {
  id: string;
  account_id: string;
  livemode: boolean;
  agent_id: string;
  /** What was asked: `draft` or `version`. */
  target: 'draft' | 'version';
  agent_version: number;
  status: EvaluationStatus;
  /** The cases evaluated, in order (their position is their index). */
  case_ids: Json<string[]>;
  /** Against the last evaluation of the live version, once completed (EvaluationComparison). */
  comparison: Json<Record<string, unknown>> | null;
  created_at: Timestamp;
  completed_at: NullableTimestamp;
}

export interface EvaluationCaseResultTable {
  evaluation_id: string;
  case_id: string;
  case_name: string;
  position: number;
  passed: boolean;
  /** [{turn, expectation, reason}] */
  failures: Json<{ turn: number; expectation: string; reason: string }[]>;
  run_ids: Json<string[]>;
  conversation_id: string;
  confidence: number | null;
  latency_ms: number;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
}
