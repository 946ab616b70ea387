import { readFileSync } from 'node:fs';
import path from 'node:path';
import { widgetScript } from '../widget/widget-script';
/**
 * The one tag a business pastes into its site, and the server-side JWT examples shown beside it.
 * `widgetScriptIntegrity` is the one place the snippet learns the served /widget.js's integrity: point it
 * at the widget script's module (src/widget/widget-script.ts, which serves /widget.js and exports its
 * sha384) where that module exists; until then the snippet goes without `integrity`.
 */
export function widgetScriptIntegrity(): string | undefined {
  return widgetScript().integrity;
}

/** `<script src="{base}/widget.js" data-key="pk_…" async></script>`, with `integrity` when the script's hash is known. */
export function widgetSnippet(input: { baseUrl: string; key: string; integrity?: string }): string {
  const base = input.baseUrl.replace(/\/+$/, '');
  // A script checked by integrity from another origin is fetched with CORS (crossorigin), or the browser refuses it.
  const sri = input.integrity ? ` integrity="${input.integrity}" crossorigin="anonymous"` : '';
  return `<script src="${base}/widget.js" data-key="${input.key}"${sri} async></script>`;
}

/**
 * The server-side JWT examples are files of their own (examples/widget/: runnable as they are, and read
 * here once), in which the identity key's id stands as this placeholder.
 */
const EXAMPLES = path.resolve(__dirname, '../../examples/widget');
const KID_PLACEHOLDER = 'idk_replace_with_your_key_id';
let examples: { node: string; python: string } | undefined;
const exampleOf = (language: 'node' | 'python', kid: string) => {
  examples ??= {
    node: readFileSync(path.join(EXAMPLES, 'visitor-jwt.js'), 'utf8').trimEnd(),
    python: readFileSync(path.join(EXAMPLES, 'visitor_jwt.py'), 'utf8').trimEnd(),
  };
  return examples[language].replaceAll(KID_PLACEHOLDER, kid);
};

/** How a business's Node server signs a visitor's identity JWT (node:crypto only). `kid`: the identity secret's id. */
export function nodeJwtExample(kid: string): string {
  return exampleOf('node', kid);
}

/** The same in Python (hmac, hashlib, base64, json, time: the standard library only). */
export function pythonJwtExample(kid: string): string {
  return exampleOf('python', kid);
}
