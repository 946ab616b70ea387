import { z } from 'zod';

/** Voice (Twilio Programmable Voice). */
export const voiceConfig = z
  .object({
    /**
     * The auth token that signs the provider's webhooks (X-Twilio-Signature); unset, every voice webhook is
     * refused (403). Signatures are checked against PUBLIC_BASE_URL + the path.
     */
    TWILIO_AUTH_TOKEN: z.string().min(1).optional(),
    /** How long a speech turn waits for its run before the call hears "one moment" and waits again. */
    VOICE_TURN_WAIT_MS: z.coerce.number().int().min(500).max(12_000).default(8_000),
  })
  .transform((e) => ({
    voice: { twilioAuthToken: (e.TWILIO_AUTH_TOKEN || undefined) as string | undefined, turnWaitMs: e.VOICE_TURN_WAIT_MS },
  }));
