/**
 * Where following a short link lands: straight on its destination, or first on a page that shows the
 * destination (an interstitial), so the platform's own domain is never an open redirect to a phishing page.
 *
 * - A destination on the service's own host (a citation page `/c/{token}`) is ours: redirect, in both modes.
 * - A test-mode link to anywhere else shows its destination first (anyone with a test key can make one).
 * - A live link redirects directly only to a domain the account has proven it owns (one of
 *   `verifiedDomains`, or a subdomain of one); any other destination is shown first.
 */
export type LinkLanding = 'redirect' | 'interstitial';

export interface DecideLinkLandingInput {
  livemode: boolean;
  url: string;
  /** The account's verified domains in the link's mode (lower case, no trailing dot). */
  verifiedDomains: readonly string[];
  /** The service's own public host (PUBLIC_BASE_URL's). */
  ownHost: string;
}

const hostOf = (url: string): string | null => {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return null;
  }
};

const withinDomain = (host: string, domain: string) => host === domain || host.endsWith(`.${domain}`);

export function decideLinkLanding(input: DecideLinkLandingInput): LinkLanding {
  const host = hostOf(input.url);
  if (!host) return 'interstitial';
  if (host === input.ownHost.toLowerCase()) return 'redirect';
  if (!input.livemode) return 'interstitial';
  const domains = input.verifiedDomains.map((d) => d.toLowerCase().replace(/\.$/, '')).filter(Boolean);
  return domains.some((d) => withinDomain(host, d)) ? 'redirect' : 'interstitial';
}

/**
 * The domains an account has proven it owns (DNS TXT), per mode: a port the links area declares. The
 * email area's domain verification provides it (src/app wires it); `NO_VERIFIED_DOMAINS` is none proven:
 * every off-platform destination is shown first.
 */
export interface VerifiedDomainsPort {
  verifiedDomains(accountId: string, mode: 'test' | 'live'): Promise<string[]>;
}

export const NO_VERIFIED_DOMAINS: VerifiedDomainsPort = { verifiedDomains: async () => [] };
