/**
 * Customer-facing links (SMS short links `/l/…`, citation pages `/c/…`) are served at PUBLIC_BASE_URL.
 * Unset, it is the API's own loopback address: such a link opens on the service's machine only. Test mode
 * may hand them out (a developer follows them locally); live mode never hands a customer a loopback link.
 */
export interface PublicLinksPolicy {
  publicBaseUrl: string;
  /** PUBLIC_BASE_URL unset, or naming a loopback host (config/http.ts). */
  publicBaseUrlIsLoopback: boolean;
}

/** Whether a reply in this mode may carry a link served at the public base URL. */
export function customerLinksServed(policy: PublicLinksPolicy, livemode: boolean): boolean {
  return !livemode || !policy.publicBaseUrlIsLoopback;
}

export const PUBLIC_BASE_URL_WARNING_CODE = 'public_base_url_loopback';

/**
 * The warning `npm start` logs and `/readyz` shows while live keys exist and PUBLIC_BASE_URL is unset or
 * loopback: live replies then go out without the service's own links. Undefined when there is nothing to say.
 */
export async function publicBaseUrlWarning(
  policy: PublicLinksPolicy,
  liveKeysExist: () => Promise<boolean>,
): Promise<{ code: string; message: string } | undefined> {
  if (!policy.publicBaseUrlIsLoopback || !(await liveKeysExist())) return undefined;
  return {
    code: PUBLIC_BASE_URL_WARNING_CODE,
    message:
      `Live keys exist but PUBLIC_BASE_URL is ${policy.publicBaseUrl} (unset or loopback): customers cannot open links there, ` +
      'so live SMS replies cite sources by their own url (no short link) and carry no citation page links. Set PUBLIC_BASE_URL to the address customers reach.',
  };
}
