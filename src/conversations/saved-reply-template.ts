/**
 * A saved reply's text with `{{variables}}`: `{{customer.name}}`, `{{customer.email}}`, `{{customer.phone}}`,
 * `{{agent.name}}` (the teammate inserting it), `{{conversation.id}}`; a fallback after a bar for a value
 * the conversation does not have: `{{customer.name|there}}`.
 */
export const SAVED_REPLY_VARIABLES = ['customer.name', 'customer.email', 'customer.phone', 'agent.name', 'conversation.id'] as const;
export type SavedReplyVariable = (typeof SAVED_REPLY_VARIABLES)[number];

/** One `{{ name | fallback }}`; names and fallbacks cannot hold braces or newlines (linear to scan). */
const VARIABLE = /\{\{([^{}|\n]*)(?:\|([^{}\n]*))?\}\}/g;

/** The variables the text names that are not known (empty: the text is fine). */
export function unknownVariables(text: string): string[] {
  const unknown = new Set<string>();
  for (const m of text.matchAll(VARIABLE)) if (!(SAVED_REPLY_VARIABLES as readonly string[]).includes(m[1]!.trim())) unknown.add(m[1]!.trim());
  return [...unknown];
}

/** The text with each variable replaced by its value (or its fallback, or nothing). */
export function renderSavedReply(text: string, values: Partial<Record<SavedReplyVariable, string | undefined>>): string {
  return text.replace(VARIABLE, (_all, name: string, fallback: string | undefined) => {
    const value = values[name.trim() as SavedReplyVariable];
    return value !== undefined && value !== '' ? value : (fallback ?? '').trim();
  });
}
