/** Every workflow the worker runs. Each area exports its workflows here. */
export { webhookDeliveryWorkflow } from './webhook-delivery.workflow';
export { knowledgeSyncWorkflow } from './knowledge-sync.workflow';
export { knowledgeEmbedWorkflow } from './knowledge-embed.workflow';
export { smsDeliveryWorkflow } from './sms-delivery.workflow';
export { smsBatchWorkflow } from './sms-batch.workflow';
export { verificationWorkflow } from './verification.workflow';
export { agentRunWorkflow } from './agent-run.workflow';
export { evaluationWorkflow } from './evaluation.workflow';
export { analyticsRollupWorkflow } from './analytics-rollup.workflow';
