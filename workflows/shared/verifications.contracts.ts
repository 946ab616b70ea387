import { defineSignal } from '@temporalio/workflow';
import { defineWorkflowContract } from './workflow-contract';

export interface VerificationInput {
  verificationId: string;
  ttlSeconds: number;
}

export interface VerificationResult {
  expired: boolean;
}

/** The lifetime of an OTP verification: a durable timer that expires it unless it finished first. */
export const verificationWorkflowContract = defineWorkflowContract<VerificationInput, VerificationResult>('verificationWorkflow');

/** The verification reached a final status (approved or locked): its expiry timer is no longer needed. */
export const verificationFinishedSignal = defineSignal('verificationFinished');

export const verificationWorkflowId = (verificationId: string) => `verification:${verificationId}`;
