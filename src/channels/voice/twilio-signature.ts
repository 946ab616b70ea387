import twilio from 'twilio';

/**
 * Checks a provider webhook's X-Twilio-Signature with the twilio package (HMAC-SHA1 of the URL Twilio
 * called followed by the sorted form parameters, under the auth token). `url` must be the URL as Twilio
 * saw it: the public base URL and the path with its query. No token configured: nothing is valid.
 */
export function isValidTwilioSignature(input: { authToken: string | undefined; signature: string | undefined; url: string; params: Record<string, unknown> }): boolean {
  if (!input.authToken || !input.signature) return false;
  return twilio.validateRequest(input.authToken, input.signature, input.url, input.params);
}
