/** `{{name}}` placeholders of a batch's body template (letters, digits and underscores, not starting with a digit). */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** A variable's name as a placeholder may use it. */
export const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The names a template uses, each once, in order of first use. */
export function templateVariables(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/**
 * Fills a template's placeholders from `variables`. A placeholder without a value is an error (the
 * names missing), never an empty string: a message reading "Hello , your code is" does not go out.
 */
export function renderTemplate(template: string, variables: Record<string, string>): { ok: true; body: string } | { ok: false; missing: string[] } {
  const missing = templateVariables(template).filter((name) => !Object.hasOwn(variables, name));
  if (missing.length > 0) return { ok: false, missing };
  return { ok: true, body: template.replace(PLACEHOLDER, (_, name: string) => variables[name]!) };
}
