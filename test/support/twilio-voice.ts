import twilio from 'twilio';

/**
 * Posts Twilio Programmable Voice webhooks to the service the way Twilio does: form-encoded parameters and
 * an X-Twilio-Signature computed by the twilio package over the public URL (`publicBaseUrl` + path and
 * query, which is what the service checks) while the request itself goes to `baseUrl`.
 */
export function twilioVoiceClient(opts: { baseUrl: string; publicBaseUrl: string; authToken: string }) {
  return async function post(
    pathAndQuery: string,
    params: Record<string, string>,
    sign: { authToken?: string; url?: string } | false = {},
  ): Promise<{ status: number; body: string; contentType: string | null }> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
    if (sign !== false) {
      const url = sign.url ?? `${opts.publicBaseUrl.replace(/\/+$/, '')}${pathAndQuery}`;
      headers['x-twilio-signature'] = twilio.getExpectedTwilioSignature(sign.authToken ?? opts.authToken, url, params);
    }
    const res = await fetch(`${opts.baseUrl}${pathAndQuery}`, { method: 'POST', headers, body: new URLSearchParams(params).toString() });
    return { status: res.status, body: await res.text(), contentType: res.headers.get('content-type') };
  };
}

export type TwilioVoiceClient = ReturnType<typeof twilioVoiceClient>;

/** A call sid of Twilio's shape (CA + 32 hex digits). */
export const newCallSid = () => `CA${Array.from({ length: 32 }, () => Math.floor(Math.random() * 16).toString(16)).join('')}`;

let nextLine = Math.floor(Math.random() * 9000);
/** A distinct +1 415 555 xxxx number on each call (numbers are unique across accounts). */
export const fictionalNumber = () => `+1415555${1000 + (nextLine++ % 9000)}`;
