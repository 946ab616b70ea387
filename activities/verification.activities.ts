import type { VerificationsService } from '../src/verifications/verifications.service';
import { asActivity } from './activity-errors';

export function createVerificationActivities(deps: { verifications: VerificationsService }) {
  return {
    /** The verification's lifetime ended: expire it if still pending (verification.expired). */
    expireVerification: (input: { verificationId: string }) => asActivity(() => deps.verifications.expireVerification(input)),
  };
}
