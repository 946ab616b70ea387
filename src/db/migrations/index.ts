import type { Migration } from 'kysely';
import * as createFoundation from './20261121T235000-create-foundation';
import * as createSms from './20261122T020000-create-sms';
import * as createKnowledge from './20261122T010000-create-knowledge';
import * as createAgents from './20261122T030000-create-agents';
import * as createKnowledgeEmbeddings from './20261123T090000-create-knowledge-embeddings';
import * as createWebhookOutbox from './20261122T050000-create-webhook-outbox';
import * as createSmsSubmitAttempts from './20261122T060000-create-sms-submit-attempts';
import * as addSecretRotation from './20261124T090000-add-secret-rotation';
import * as addSealedMessageBody from './20261124T100000-add-sealed-message-body';
import * as createSenders from './20261124T110000-create-senders';
import * as addWebhookSecretRotation from './20261125T095000-add-webhook-secret-rotation';
import * as addMessageChannels from './20261125T090000-add-message-channels';
import * as createShortLinks from './20261125T100000-create-short-links';
import * as addShortLinkMode from './20261127T120000-add-short-link-mode';
import * as createConsoleSessions from './20261125T130000-create-console-sessions';
import * as createCalls from './20261125T120000-create-calls';
import * as createEmail from './20261125T110000-create-email';
import * as createEmailDomains from './20261127T143000-create-email-domains';
import * as addLivemode from './20261125T150000-add-livemode';
import * as createSmsOutbox from './20261126T090000-create-sms-outbox';
import * as addTestSigningSecret from './20261126T101500-add-test-signing-secret';
import * as bindConsoleSessions from './20261126T103000-bind-console-sessions';
import * as createMessageBatches from './20261126T120000-create-message-batches';
import * as createCitationPages from './20261126T140000-create-citation-pages';
import * as createEvaluations from './20261126T150000-create-evaluations';
import * as addSentenceVectors from './20261126T160000-add-sentence-vectors';
import * as indexMissingSentenceVectors from './20261126T170000-index-missing-sentence-vectors';
import * as createQueuesAndUnread from './20261127T090000-create-queues-and-unread';
import * as createAnalytics from './20261127T195000-create-analytics';
import * as addRunRetrievalMode from './20261127T100000-add-run-retrieval-mode';
import * as createKnowledgeRecords from './20261127T150000-create-knowledge-records';
import * as createPublishableKeys from './20261127T170000-create-publishable-keys';
import * as createConversationEvents from './20261127T180000-create-conversation-events';
import * as addWidgetAppearance from './20261127T192000-add-widget-appearance';
import * as addTeammatesAndRoles from './20261127T193000-add-teammates-and-roles';
import * as createInboxWork from './20261127T194000-create-inbox-work';
import * as indexInboxCounts from './20261127T235000-index-inbox-counts';
import * as addQueueMembers from './20261127T235500-add-queue-members';
import * as addSmsReplySignature from './20261127T235900-add-sms-reply-signature';
import * as createKnowledgeQuestionVectors from './20261127T195500-create-knowledge-question-vectors';
import * as addMessageCitationsAndKind from './20261127T233000-add-message-citations-and-kind';
import * as oneFeedbackPerAnswer from './20261128T001500-one-feedback-per-answer';
import * as createAnalyticsDaily from './20261127T233000-create-analytics-daily';

/**
 * Every migration, listed explicitly (no filesystem scan, so bundling is safe). Names sort by time;
 * each area appends its own line.
 */
export const migrations: Record<string, Migration> = {
  '20261121T235000-create-foundation': createFoundation,
  '20261122T020000-create-sms': createSms,
  '20261122T010000-create-knowledge': createKnowledge,
  '20261122T030000-create-agents': createAgents,
  '20261123T090000-create-knowledge-embeddings': createKnowledgeEmbeddings,
  '20261122T050000-create-webhook-outbox': createWebhookOutbox,
  '20261122T060000-create-sms-submit-attempts': createSmsSubmitAttempts,
  '20261124T090000-add-secret-rotation': addSecretRotation,
  '20261124T100000-add-sealed-message-body': addSealedMessageBody,
  '20261124T110000-create-senders': createSenders,
  '20261125T090000-add-message-channels': addMessageChannels,
  '20261125T095000-add-webhook-secret-rotation': addWebhookSecretRotation,
  '20261125T100000-create-short-links': createShortLinks,
  '20261125T110000-create-email': createEmail,
  '20261125T120000-create-calls': createCalls,
  '20261125T130000-create-console-sessions': createConsoleSessions,
  '20261125T150000-add-livemode': addLivemode,
  '20261126T090000-create-sms-outbox': createSmsOutbox,
  '20261126T101500-add-test-signing-secret': addTestSigningSecret,
  '20261126T103000-bind-console-sessions': bindConsoleSessions,
  '20261126T120000-create-message-batches': createMessageBatches,
  '20261126T140000-create-citation-pages': createCitationPages,
  '20261126T150000-create-evaluations': createEvaluations,
  '20261126T160000-add-sentence-vectors': addSentenceVectors,
  '20261126T170000-index-missing-sentence-vectors': indexMissingSentenceVectors,
  '20261127T090000-create-queues-and-unread': createQueuesAndUnread,
  '20261127T100000-add-run-retrieval-mode': addRunRetrievalMode,
  '20261127T120000-add-short-link-mode': addShortLinkMode,
  '20261127T143000-create-email-domains': createEmailDomains,
  '20261127T150000-create-knowledge-records': createKnowledgeRecords,
  '20261127T170000-create-publishable-keys': createPublishableKeys,
  '20261127T180000-create-conversation-events': createConversationEvents,
  '20261127T192000-add-widget-appearance': addWidgetAppearance,
  '20261127T193000-add-teammates-and-roles': addTeammatesAndRoles,
  '20261127T194000-create-inbox-work': createInboxWork,
  '20261127T195000-create-analytics': createAnalytics,
  '20261127T195500-create-knowledge-question-vectors': createKnowledgeQuestionVectors,
  '20261127T233000-add-message-citations-and-kind': addMessageCitationsAndKind,
  '20261127T233000-create-analytics-daily': createAnalyticsDaily,
  '20261127T235000-index-inbox-counts': indexInboxCounts,
  '20261127T235500-add-queue-members': addQueueMembers,
  '20261127T235900-add-sms-reply-signature': addSmsReplySignature,
  '20261128T001500-one-feedback-per-answer': oneFeedbackPerAnswer,
};
