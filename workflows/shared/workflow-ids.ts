/** Workflow ids are business keys, built only here (STYLE §3). */
export const webhookDeliveryWorkflowId = (deliveryId: string) => `webhook-delivery:${deliveryId}`;
