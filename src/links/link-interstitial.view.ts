import { html } from '../platform/html';

/**
 * The page a short link shows instead of redirecting (src/links/link-landing.ts): the full destination,
 * its host set apart, and a plain link the reader chooses to follow (no script, no automatic redirect;
 * the referrer is not sent; an http(s) url only, never a `javascript:` one). Test-mode links say they are test links.
 */
export function linkInterstitialPage(input: { url: string; host: string; livemode: boolean }): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Leaving for ${input.host}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<link rel="stylesheet" href="/console/assets/console.css"></head>
<body><main class="citation">
${input.livemode ? '' : html`<p class="muted"><strong>Test mode link.</strong> It was made by a test key and is shown, never followed automatically.</p>`}
<h1>This link leads to another site</h1>
<p>Destination: <strong data-host>${input.host}</strong></p>
<p><code data-url>${input.url}</code></p>
<p>Continue only if you trust this site.</p>
${/^https?:\/\//i.test(input.url) ? html`<p><a href="${input.url}" rel="noopener noreferrer nofollow">Continue to ${input.host}</a></p>` : ''}
</main></body></html>`.toString();
}
