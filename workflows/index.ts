/** Every workflow the worker runs. Each area exports its workflows here. */
export { webhookDeliveryWorkflow } from './webhook-delivery.workflow';
export { knowledgeSyncWorkflow } from './knowledge-sync.workflow';
