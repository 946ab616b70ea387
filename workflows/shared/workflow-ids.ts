/** Workflow ids are business keys, built only here (STYLE §3). */
export const webhookDeliveryWorkflowId = (deliveryId: string) => `webhook-delivery:${deliveryId}`;
/** One knowledge sync (building `version` of a source); scheduled runs get Temporal's timestamp suffix. */
export const knowledgeSyncWorkflowId = (sourceId: string, version: number) => `knowledge-sync:${sourceId}:v${version}`;
export const knowledgeScheduledSyncWorkflowId = (sourceId: string) => `knowledge-sync:${sourceId}:scheduled`;
export const knowledgeRefreshScheduleId = (sourceId: string) => `knowledge-refresh:${sourceId}`;
export const smsDeliveryWorkflowId = (messageId: string) => `sms-delivery:${messageId}`;
/** A batch of immediate messages, named after its first message. */
export const smsBatchWorkflowId = (firstMessageId: string) => `sms-batch:${firstMessageId}`;
export const verificationWorkflowId = (verificationId: string) => `verification:${verificationId}`;
