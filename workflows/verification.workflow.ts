import { condition, proxyActivities, setHandler } from '@temporalio/workflow';
import type { createVerificationActivities } from '../activities/verification.activities';
import { dbActivity } from './shared/activity-options';
import { verificationFinishedSignal, type VerificationInput, type VerificationResult } from './shared/verifications.contracts';

const { expireVerification } = proxyActivities<ReturnType<typeof createVerificationActivities>>(dbActivity);

/** The lifetime of an OTP verification: a durable timer that expires it unless it finished first. */
export async function verificationWorkflow(input: VerificationInput): Promise<VerificationResult> {
  let finished = false;
  setHandler(verificationFinishedSignal, () => {
    finished = true;
  });
  if (await condition(() => finished, input.ttlSeconds * 1000)) return { expired: false };
  await expireVerification({ verificationId: input.verificationId });
  return { expired: true };
}
