import type { AccountTable, ApiKeyTable, IdempotencyKeyTable } from './tables/accounts';
import type { EventTable, WebhookAttemptTable, WebhookDeliveryTable, WebhookEndpointTable } from './tables/events';
import type { MessagePartTable, MessageTable, PhoneNumberTable, SmsConsentTable, SmsReceiptTable, VerificationTable } from './tables/sms';
import type { KnowledgeBaseTable, KnowledgeEmbeddingTable, KnowledgeFileTable, KnowledgePassageTable, KnowledgeSourceTable, KnowledgeTermTable } from './tables/knowledge';

/**
 * The database as kysely sees it. Each area adds its tables here (one import line and its keys).
 */
export interface DB {
  accounts: AccountTable;
  api_keys: ApiKeyTable;
  idempotency_keys: IdempotencyKeyTable;
  events: EventTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  messages: MessageTable;
  message_parts: MessagePartTable;
  sms_receipts: SmsReceiptTable;
  sms_consents: SmsConsentTable;
  phone_numbers: PhoneNumberTable;
  verifications: VerificationTable;
  knowledge_bases: KnowledgeBaseTable;
  knowledge_files: KnowledgeFileTable;
  knowledge_sources: KnowledgeSourceTable;
  knowledge_passages: KnowledgePassageTable;
  knowledge_terms: KnowledgeTermTable;
  knowledge_embeddings: KnowledgeEmbeddingTable;
}
