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

/** How a business's Node server signs a visitor's identity JWT (node:crypto only). `kid`: the identity secret's id. */
export function nodeJwtExample(kid: string): string {
  return `// Node (no library): sign a visitor JWT on your server, never in the browser.
const crypto = require('node:crypto');

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

function visitorJwt(customer) {
  const header = b64({ alg: 'HS256', typ: 'JWT', kid: '${kid}' });
  const payload = b64({
    sub: customer.id, // your customer id
    email: customer.email,
    name: customer.name,
    exp: Math.floor(Date.now() / 1000) + 3600, // required, at most 24 h ahead
  });
  const signature = crypto
    .createHmac('sha256', process.env.CONVERSE_IDENTITY_SECRET) // the isk_… secret
    .update(\`\${header}.\${payload}\`)
    .digest('base64url');
  return \`\${header}.\${payload}.\${signature}\`;
}`;
}

/** The same in Python (hmac, hashlib, base64, json, time: the standard library only). */
export function pythonJwtExample(kid: string): string {
  return `# Python (standard library only): sign a visitor JWT on your server, never in the browser.
import base64, hashlib, hmac, json, os, time

def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

def visitor_jwt(customer_id, email=None, name=None):
    header = b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "${kid}"}).encode())
    claims = {"sub": customer_id, "exp": int(time.time()) + 3600}  # exp: required, at most 24 h ahead
    if email:
        claims["email"] = email
    if name:
        claims["name"] = name
    payload = b64(json.dumps(claims).encode())
    secret = os.environ["CONVERSE_IDENTITY_SECRET"].encode()  # the isk_... secret
    signature = hmac.new(secret, f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{b64(signature)}"`;
}
