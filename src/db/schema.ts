import type { AccountTable, ApiKeyTable, IdempotencyKeyTable } from './tables/accounts';
import type { EventTable, WebhookAttemptTable, WebhookDeliveryTable, WebhookEndpointTable } from './tables/events';
import type { MessageBatchTable, MessagePartTable, MessageTable, PhoneNumberTable, SmsConsentTable, SmsOutboxTable, SmsReceiptTable, SmsSubmitAttemptTable, VerificationTable } from './tables/sms';
import type { AgentTable, AgentVersionTable, ConversationEventTable, ConversationMessageTable, ConversationTable, QueueTable, RunEventTable, RunTable, RunToolCallTable } from './tables/agents';
import type { SenderTable } from './tables/senders';
import type { CitationPageTable, ShortLinkTable } from './tables/links';
import type { ConsoleSessionTable, ConsoleSignInLinkTable, ConsoleUserTable } from './tables/console';
import type { CallTable } from './tables/calls';
import type { AgentTestCaseTable, EvaluationCaseResultTable, EvaluationTable } from './tables/evaluations';
import type { EmailAddressTable, EmailDomainTable, EmailMessageTable } from './tables/email';
import type { AgentIdentitySecretTable, PublishableKeyTable } from './tables/widget';
import type { KnowledgeBaseTable, KnowledgeEmbeddingTable, KnowledgeFileTable, KnowledgePassageTable, KnowledgeQuestionVectorTable, KnowledgeRecordTable, KnowledgeSourceTable, KnowledgeTermTable } from './tables/knowledge';

/**
 * The database as kysely sees it. Each area adds its tables here (one import line and its keys).
 */
export interface DB {
  accounts: AccountTable;
  api_keys: ApiKeyTable;
  publishable_keys: PublishableKeyTable;
  agent_identity_secrets: AgentIdentitySecretTable;
  idempotency_keys: IdempotencyKeyTable;
  events: EventTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  messages: MessageTable;
  message_batches: MessageBatchTable;
  message_parts: MessagePartTable;
  sms_receipts: SmsReceiptTable;
  sms_consents: SmsConsentTable;
  sms_submit_attempts: SmsSubmitAttemptTable;
  sms_outbox: SmsOutboxTable;
  phone_numbers: PhoneNumberTable;
  senders: SenderTable;
  verifications: VerificationTable;
  knowledge_bases: KnowledgeBaseTable;
  knowledge_files: KnowledgeFileTable;
  knowledge_sources: KnowledgeSourceTable;
  knowledge_passages: KnowledgePassageTable;
  knowledge_records: KnowledgeRecordTable;
  knowledge_terms: KnowledgeTermTable;
  agents: AgentTable;
  agent_versions: AgentVersionTable;
  conversations: ConversationTable;
  conversation_messages: ConversationMessageTable;
  queues: QueueTable;
  runs: RunTable;
  run_tool_calls: RunToolCallTable;
  run_events: RunEventTable;
  conversation_events: ConversationEventTable;
  knowledge_embeddings: KnowledgeEmbeddingTable;
  knowledge_question_vectors: KnowledgeQuestionVectorTable;
  short_links: ShortLinkTable;
  citation_pages: CitationPageTable;
  console_users: ConsoleUserTable;
  console_sessions: ConsoleSessionTable;
  console_sign_in_links: ConsoleSignInLinkTable;
  calls: CallTable;
  email_addresses: EmailAddressTable;
  email_messages: EmailMessageTable;
  email_domains: EmailDomainTable;
  agent_test_cases: AgentTestCaseTable;
  evaluations: EvaluationTable;
  evaluation_case_results: EvaluationCaseResultTable;
}
