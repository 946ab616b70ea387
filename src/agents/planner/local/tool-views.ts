import type { PlannerTool } from '../port';
import { identifierWords } from '../../../platform/text';

/**
 * The texts a tool is embedded from, one group per view. The router compares the customer's message with
 * each view separately (a view's cosine is the best of its texts) because each view misses different
 * phrasings: the description embedded as a passage finds paraphrases best, its clauses short messages
 * that name one case of it ("zero bars" for a fault report), the synthesized requests find
 * first-person wording ("I want to …"), the parameter descriptions find messages that mention what the
 * tool needs, and the informational forms ("How does … work?") are the questions about the tool's subject
 * that need no tool.
 */
export interface ToolViews {
  /** Name in words and description, embedded as a query. */
  card: string;
  /** The description alone, embedded as a passage. */
  description: string;
  /** The description's clauses ("no signal", "dropped calls"…), passages: short messages match one of them. */
  clauses: string[];
  /** Requests a customer could write, synthesized from the name and the description (queries). */
  requests: string[];
  /** The parameters' descriptions (the name in words for a tool without any), queries. */
  parameters: string[];
  /** Questions about the tool's subject that need no tool (queries). */
  questions: string[];
}

export type ToolView = keyof ToolViews;
export const TOOL_VIEWS: readonly ToolView[] = ['card', 'description', 'clauses', 'requests', 'parameters', 'questions'];
/** How each view is embedded (e5-style models prefix queries and passages differently). */
export const VIEW_KIND: Record<ToolView, 'query' | 'passage'> = {
  card: 'query',
  description: 'passage',
  clauses: 'passage',
  requests: 'query',
  parameters: 'query',
  questions: 'query',
};

/** The text of a tool's card: its name in words and its description. */
export function toolEmbeddingText(tool: PlannerTool): string {
  return `${identifierWords(tool.name).join(' ')}. ${tool.description.trim()}`;
}

/**
 * A description rewritten as the customer's own words: "Look up where a customer's order is" becomes
 * "look up where my order is" (the customer, patient, user or passenger becomes me; their, my).
 */
export function inFirstPerson(description: string): string {
  const s = description
    .trim()
    .replace(/\.+$/, '')
    .replace(/\b(?:a|the) (?:customer|patient|user|passenger)'s\b/gi, 'my')
    .replace(/\b(?:a|the) (?:customer|patient|user|passenger)\b/gi, 'me')
    .replace(/\bthey\b/g, 'I')
    .replace(/\btheir\b/g, 'my');
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/**
 * A description cut at punctuation and at "or", "and", "so": "Report a network fault: no signal, dropped
 * calls or no mobile internet" gives "Report a network fault", "no signal", "dropped calls", "no mobile
 * internet". Pieces of one word are dropped; a description without two-word pieces stays whole.
 */
export function descriptionClauses(description: string): string[] {
  const parts = description
    .split(/[:;,()]| or | and | so /)
    .map((p) => p.replace(/^[\s.]+|[\s.]+$/g, ''))
    .filter((p) => p.split(/\s+/).filter(Boolean).length >= 2);
  return parts.length ? parts : [description];
}

export function toolViews(tool: PlannerTool): ToolViews {
  const words = identifierWords(tool.name).join(' ');
  const properties = Object.values((tool.parameters?.properties ?? {}) as Record<string, { description?: unknown }>);
  const parameters = properties.map((p) => (typeof p.description === 'string' ? p.description.trim() : '')).filter(Boolean);
  return {
    card: toolEmbeddingText(tool),
    description: tool.description,
    clauses: descriptionClauses(tool.description),
    requests: [`I want to ${words}`, `Please ${inFirstPerson(tool.description)}`, `Can you ${words} for me?`],
    parameters: parameters.length ? parameters : [words],
    questions: [`How does ${words} work?`, `What is your policy on ${words}?`],
  };
}

/** The texts of one view of a tool, as a list. */
export function viewTexts(views: ToolViews, view: ToolView): string[] {
  const v = views[view];
  return Array.isArray(v) ? v : [v];
}

/**
 * Generic messages that need no tool (questions about policy, prices, hours; courtesy): a tool must be
 * closer to the message than these are. Embedded once per model.
 */
export const NO_TOOL_ANCHORS = [
  'What is your policy on this?',
  'How does this work?',
  'Do you offer this?',
  'How much does it cost?',
  'What are your opening hours?',
  'Hello',
  'Thank you, goodbye',
  'What does this mean?',
  'Is it possible to do this?',
  'Where can I find information about this?',
  'Tell me a joke',
  "What's the weather today?",
  'What are the rules for this?',
  'How long does it usually take?',
  'Can you recommend something?',
];
