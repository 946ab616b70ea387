import { defineSignal } from '@temporalio/workflow';

/** Stops a delivery's retry loop (its endpoint was disabled or deleted). */
export const cancelDeliverySignal = defineSignal('cancelDelivery');
