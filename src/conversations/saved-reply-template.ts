/**
 * A saved reply's text with `{{variables}}`: `{{customer.name}}`, `{{customer.email}}`, `{{customer.phone}}`,
 * `{{agent.name}}` (the teammate inserting it), `{{conversation.id}}`; a fallback after a bar for a value
 * the conversation does not have: `{{customer.name|there}}`.
 */
export const SAVED_REPLY_VARIABLES = ['customer.name', 'customer.email', 'customer.phone', 'agent.name', 'conversation.id'] as const;
export type SavedReplyVariable = (typeof SAVED_REPLY_VARIABLES)[number];

/** One `{{ name | fallback }}`; names and fallbacks cannot hold braces or newlines (linear to scan). */
const VARIABLE = /\{\{([^{}|\n]*)(?:\|([^{}\n]*))?\}\}/g;

const isVariable = (name: string): name is SavedReplyVariable => (SAVED_REPLY_VARIABLES as readonly string[]).includes(name);

/** The variables the text names that are not known (empty: the text is fine). */
export function unknownVariables(text: string): string[] {
  const unknown = new Set<string>();
  for (const m of text.matchAll(VARIABLE)) if (!isVariable(m[1]!.trim())) unknown.add(m[1]!.trim());
  return [...unknown];
}

/**
 * The text with each documented variable replaced by its value (or its fallback, or nothing), in one pass:
 * a value is never read as a template again, and any other `{{…}}` (none is saved, but the text is data)
 * stays as written rather than reaching a property of `values` such as `constructor`.
 */
export function renderSavedReply(text: string, values: Partial<Record<SavedReplyVariable, string | undefined>>): string {
  return text.replace(VARIABLE, (all: string, name: string, fallback: string | undefined) => {
    const key = name.trim();
    if (!isVariable(key)) return all;
    const value = Object.hasOwn(values, key) ? values[key] : undefined;
    return typeof value === 'string' && value !== '' ? value : (fallback ?? '').trim();
  });
}
