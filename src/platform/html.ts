/** Markup that is already safe: produced by `html` or marked with `raw` (never user input). */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** A template tag that escapes every interpolated value unless it is `Html` (nested templates, `raw`). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Html(out);
}

/** Trusted markup as it is (constants only). */
export const raw = (s: string) => new Html(s);

/** Whether a URL may become a link: http(s) only (a `javascript:` or `data:` URL from a source stays text). */
export function isHttpUrl(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** A URL from outside (a source's passage, an api answer) as a link opening in a new tab, or as text when it is not http(s). */
export const externalLink = (url: string, className = 'muted'): Html =>
  isHttpUrl(url)
    ? html`<a href="${url}" target="_blank" rel="noopener noreferrer" class="${className}">${url}</a>`
    : html`<span class="${className}">${url}</span>`;
