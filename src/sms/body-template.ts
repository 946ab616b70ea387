/** `{{name}}` placeholders of a batch's body template (letters, digits and underscores, not starting with a digit). */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** A variable's name as a placeholder may use it. */
export const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A template split once: the literal text between placeholders (one more than `names`) and each placeholder's name. */
export interface BodyTemplate {
  literals: string[];
  names: string[];
  /** The placeholders' names, each once, in order of first use. */
  variables: string[];
  /** How many times each name is used, for the rendered length without rendering. */
  uses: Map<string, number>;
  literalLength: number;
}

export function parseTemplate(template: string): BodyTemplate {
  const literals: string[] = [];
  const names: string[] = [];
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    literals.push(template.slice(last, m.index));
    names.push(m[1]!);
    last = m.index + m[0].length;
  }
  literals.push(template.slice(last));
  const uses = new Map<string, number>();
  for (const name of names) uses.set(name, (uses.get(name) ?? 0) + 1);
  return { literals, names, variables: [...uses.keys()], uses, literalLength: literals.reduce((n, l) => n + l.length, 0) };
}

/** The names a template uses, each once, in order of first use. */
export function templateVariables(template: string): string[] {
  return parseTemplate(template).variables;
}

export type RenderedTemplate = { ok: true; body: string } | { ok: false; missing: string[] } | { ok: false; length: number };

/**
 * Fills a template's placeholders from `variables`. A placeholder without a value is an error (the
 * names missing), never an empty string: a message reading "Hello , your code is" does not go out.
 * With `maxLength`, the rendered length (UTF-16 units, as String.length) is added up from the parts first
 * and a body longer than that is refused with its length, without building it: 320 placeholders times
 * a 1,600-character value is never materialised as a 512,000-character string only to be refused.
 */
export function renderTemplate(template: string | BodyTemplate, variables: Record<string, string>, options: { maxLength?: number } = {}): RenderedTemplate {
  const parsed = typeof template === 'string' ? parseTemplate(template) : template;
  const missing = parsed.variables.filter((name) => !Object.hasOwn(variables, name));
  if (missing.length > 0) return { ok: false, missing };
  if (options.maxLength !== undefined) {
    let length = parsed.literalLength;
    for (const [name, times] of parsed.uses) length += times * variables[name]!.length;
    if (length > options.maxLength) return { ok: false, length };
  }
  let body = parsed.literals[0]!;
  parsed.names.forEach((name, i) => {
    body += variables[name]! + parsed.literals[i + 1]!;
  });
  return { ok: true, body };
}
