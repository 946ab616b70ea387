import type { KnowledgeRecordInput } from '../db/tables/knowledge';
import acmeHelpCenter from '../../examples/knowledge/acme-help-center.json';

/** The example's names and help center, apart from the code that creates them (demo traffic reads them too). */
export const EXAMPLE_KNOWLEDGE_BASE_NAME = 'Example: Acme help center';
export const EXAMPLE_AGENT_NAME = 'Example support agent';

/**
 * The help center of Acme, an imaginary online store: enough for a first grounded answer with citations.
 * Its one home is examples/knowledge/acme-help-center.json (the worked example of the README's
 * Evaluations section loads the same file); npm start's base leaves out its metadata.
 */
export const EXAMPLE_FAQ: KnowledgeRecordInput[] = acmeHelpCenter.records.map(({ title, content, url }) => ({ title, content, url }));
