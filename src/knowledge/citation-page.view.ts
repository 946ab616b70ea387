import { html } from '../platform/html';

/**
 * The public page of a cited passage (`/c/{token}`): what a customer following a reply's citation link
 * reads. Plain text only (every value escaped); not indexed by search engines.
 */
export function citationPage(input: { title: string; section: string | null; content: string }): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${input.title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<link rel="stylesheet" href="/console/assets/console.css"></head>
<body><main class="citation">
<h1>${input.title}</h1>
${input.section ? html`<h2>${input.section}</h2>` : ''}
${input.content.split(/\n{2,}/).map((p) => html`<p>${p}</p>`)}
</main></body></html>`.toString();
}
