import { AgentConfigSchema, type AgentConfig, type AgentConfigInput } from '../agents/agent.schemas';
import { AppError } from '../domain/errors';

/** The locales the resolution question has a field for in the editor (the service's defaults exist for these). */
export const RESOLUTION_QUESTION_LOCALES = ['en', 'de', 'fr', 'es'] as const;

/** One tool as the form shows it (strings as typed, so a bad value is shown back as it was). */
export interface ToolForm {
  name: string;
  description: string;
  parameters: string;
  endpoint: string;
  timeout_ms: string;
  idempotent: boolean;
  approval: boolean;
  /** Who may approve its calls: roles, comma-separated (empty: agent and above). */
  approver_roles: string;
}

/** The agent editor's values, field by field; field names in the HTML are these keys (tools.N.x, kb_filter.ID). */
export interface AgentForm {
  name: string;
  channels: string[];
  locales: string;
  instructions: string;
  knowledge_bases: { id: string; filter: string }[];
  locale_filter_key: string;
  retrieval_required: boolean;
  locale_fallback: boolean;
  tools: ToolForm[];
  restricted_topics: string;
  restricted_topic_action: string;
  confidence_floor: string;
  default_queue: string;
  on_low_confidence: boolean;
  /** Handoff notices, one `locale: text` per line. */
  handoff_notice: string;
  handoff_notice_after_hours: string;
  /** SMS and email: ask "Did that answer your question?" after each answer. */
  resolution_question: boolean;
  /** The agent's own question by locale (en, de, fr, es; other locales set in YAML are kept); empty: the default. */
  resolution_question_text: Record<string, string>;
  approval_seconds: string;
  tool_result_seconds: string;
  require_passing_evaluation: boolean;
}

/** Validation messages by form field name. */
export type FieldErrors = Record<string, string>;

export function configToForm(c: AgentConfig): AgentForm {
  return {
    name: c.name,
    channels: c.channels,
    locales: c.locales.join(', '),
    instructions: c.instructions,
    knowledge_bases: c.knowledge_bases.map((k) => ({ id: k.id, filter: k.filter ? JSON.stringify(k.filter) : '' })),
    locale_filter_key: c.locale_filter_key ?? '',
    retrieval_required: c.retrieval_required,
    locale_fallback: c.locale_fallback !== false,
    tools: c.tools.map((t) => ({
      name: t.name,
      description: t.description,
      parameters: JSON.stringify(t.parameters, null, 2),
      endpoint: t.endpoint,
      timeout_ms: String(t.timeout_ms),
      idempotent: t.idempotent,
      approval: c.guardrails.requires_approval.includes(t.name),
      approver_roles: (t.approver_roles ?? []).join(', '),
    })),
    restricted_topics: c.guardrails.restricted_topics.join('\n'),
    restricted_topic_action: c.guardrails.restricted_topic_action,
    confidence_floor: String(c.guardrails.confidence_floor),
    default_queue: c.handoff.default_queue,
    on_low_confidence: c.handoff.on_low_confidence,
    handoff_notice: noticeLines(c.handoff.notice),
    handoff_notice_after_hours: noticeLines(c.handoff.notice_after_hours),
    resolution_question: c.resolution_question.enabled,
    resolution_question_text: { ...(c.resolution_question.text ?? {}) },
    approval_seconds: String(c.timeouts.approval_seconds),
    tool_result_seconds: String(c.timeouts.tool_result_seconds),
    require_passing_evaluation: c.require_passing_evaluation,
  };
}

export const emptyForm = (): AgentForm => configToForm(AgentConfigSchema.parse({ name: 'New agent' }));

const str = (v: unknown) => (Array.isArray(v) ? String(v.at(-1) ?? '') : typeof v === 'string' ? v : '');
const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : typeof v === 'string' && v !== '' ? [v] : []);
const on = (v: unknown) => v !== undefined && v !== '' && v !== '0';

/** Reads the posted (urlencoded) editor into its form values. */
export function readAgentForm(body: Record<string, unknown>): AgentForm {
  const toolIndexes = new Set<number>();
  const kbIds = list(body.kb);
  for (const key of Object.keys(body)) {
    const m = /^tools\.(\d+)\./.exec(key);
    if (m) toolIndexes.add(Number(m[1]));
  }
  const tools = [...toolIndexes].sort((a, b) => a - b).map((i) => ({
    name: str(body[`tools.${i}.name`]).trim(),
    description: str(body[`tools.${i}.description`]).trim(),
    parameters: str(body[`tools.${i}.parameters`]),
    endpoint: str(body[`tools.${i}.endpoint`]).trim(),
    timeout_ms: str(body[`tools.${i}.timeout_ms`]).trim(),
    idempotent: on(body[`tools.${i}.idempotent`]),
    approval: on(body[`tools.${i}.approval`]),
    approver_roles: str(body[`tools.${i}.approver_roles`]).trim(),
  }));
  return {
    name: str(body.name).trim(),
    channels: list(body.channels),
    locales: str(body.locales),
    instructions: str(body.instructions),
    knowledge_bases: kbIds.map((id) => ({ id, filter: str(body[`kb_filter.${id}`]) })),
    locale_filter_key: str(body.locale_filter_key).trim(),
    retrieval_required: on(body.retrieval_required),
    locale_fallback: on(body.locale_fallback),
    tools,
    restricted_topics: str(body.restricted_topics),
    restricted_topic_action: str(body.restricted_topic_action) || 'handoff',
    confidence_floor: str(body.confidence_floor).trim(),
    default_queue: str(body.default_queue).trim(),
    on_low_confidence: on(body.on_low_confidence),
    handoff_notice: str(body.handoff_notice),
    handoff_notice_after_hours: str(body.handoff_notice_after_hours),
    resolution_question: on(body.resolution_question),
    resolution_question_text: resolutionTextsOf(body),
    approval_seconds: str(body.approval_seconds).trim(),
    tool_result_seconds: str(body.tool_result_seconds).trim(),
    require_passing_evaluation: on(body.require_passing_evaluation),
  };
}

/**
 * The posted `resolution_question_text.LOCALE` fields (empty ones dropped: the default applies), plus the
 * locales the editor has no field for, carried as `resolution_question_text.other` (JSON) so YAML-set ones stay.
 */
function resolutionTextsOf(body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  try {
    const other: unknown = JSON.parse(str(body['resolution_question_text.other']) || '{}');
    if (other && typeof other === 'object' && !Array.isArray(other)) {
      for (const [k, v] of Object.entries(other)) if (typeof v === 'string' && !(RESOLUTION_QUESTION_LOCALES as readonly string[]).includes(k)) out[k] = v;
    }
  } catch {
    // a tampered hidden field: the other locales are dropped, as an empty field would be
  }
  for (const locale of RESOLUTION_QUESTION_LOCALES) {
    const text = str(body[`resolution_question_text.${locale}`]).trim();
    if (text) out[locale] = text;
  }
  return out;
}

/** `{en: "…", fr: "…"}` as the editor shows it: one `locale: text` per line. */
function noticeLines(notices: Record<string, string> | undefined): string {
  return Object.entries(notices ?? {}).map(([locale, text]) => `${locale}: ${text}`).join('\n');
}

/** The editor's `locale: text` lines as notices by locale (undefined when empty); a line without a locale is an error. */
function noticesOf(field: string, text: string, errors: FieldErrors): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean)) {
    const m = /^([A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*)\s*:\s*(.+)$/.exec(line);
    if (!m) {
      errors[field] ??= `Write one "locale: text" per line (e.g. "en: Thanks — we'll reply here."); not understood: "${line.slice(0, 60)}"`;
      continue;
    }
    out[m[1]!] = m[2]!;
  }
  return Object.keys(out).length ? out : undefined;
}

const num = (s: string) => (s.trim() === '' ? undefined : Number(s));

/**
 * The config the form describes, or every problem found, keyed by the field to show it next to. JSON
 * fields are parsed here; everything else is the agents' own schema (the same rules as `agents apply`).
 */
export function formToConfig(form: AgentForm): { config?: AgentConfigInput; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const json = (field: string, text: string): unknown => {
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text);
    } catch (err) {
      errors[field] = `Not valid JSON: ${(err as Error).message}`;
      return undefined;
    }
  };
  const config = {
    name: form.name,
    channels: form.channels,
    locales: form.locales.split(',').map((s) => s.trim()).filter(Boolean),
    instructions: form.instructions,
    knowledge_bases: form.knowledge_bases.map((k) => ({ id: k.id, ...(json(`kb_filter.${k.id}`, k.filter) !== undefined ? { filter: json(`kb_filter.${k.id}`, k.filter) } : {}) })),
    locale_filter_key: form.locale_filter_key || null,
    retrieval_required: form.retrieval_required,
    locale_fallback: form.locale_fallback,
    tools: form.tools.map((t, i) => ({
      name: t.name,
      description: t.description,
      parameters: json(`tools.${i}.parameters`, t.parameters) ?? { type: 'object', properties: {} },
      endpoint: t.endpoint,
      timeout_ms: num(t.timeout_ms),
      idempotent: t.idempotent,
      ...(t.approver_roles ? { approver_roles: t.approver_roles.split(',').map((r) => r.trim()).filter(Boolean) as never } : {}),
    })),
    guardrails: {
      requires_approval: form.tools.filter((t) => t.approval).map((t) => t.name),
      restricted_topics: form.restricted_topics.split('\n').map((s) => s.trim()).filter(Boolean),
      restricted_topic_action: form.restricted_topic_action,
      confidence_floor: num(form.confidence_floor),
    },
    handoff: {
      default_queue: form.default_queue || undefined,
      on_low_confidence: form.on_low_confidence,
      notice: noticesOf('handoff_notice', form.handoff_notice, errors),
      notice_after_hours: noticesOf('handoff_notice_after_hours', form.handoff_notice_after_hours, errors),
    },
    resolution_question: {
      enabled: form.resolution_question,
      ...(Object.keys(form.resolution_question_text).length ? { text: form.resolution_question_text } : {}),
    },
    timeouts: { approval_seconds: num(form.approval_seconds), tool_result_seconds: num(form.tool_result_seconds) },
    require_passing_evaluation: form.require_passing_evaluation,
  };
  const parsed = AgentConfigSchema.safeParse(config);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = fieldOf(issue.path as (string | number)[], form);
      errors[field] ??= issue.message;
    }
  }
  return Object.keys(errors).length ? { errors } : { config: parsed.data, errors };
}

const FIELD_BY_PATH: Record<string, string> = {
  'guardrails.confidence_floor': 'confidence_floor',
  'guardrails.restricted_topics': 'restricted_topics',
  'guardrails.restricted_topic_action': 'restricted_topic_action',
  'handoff.default_queue': 'default_queue',
  'handoff.notice': 'handoff_notice',
  'handoff.notice_after_hours': 'handoff_notice_after_hours',
  'timeouts.approval_seconds': 'approval_seconds',
  'timeouts.tool_result_seconds': 'tool_result_seconds',
};

/** The form field a config path (`tools.0.parameters`, `knowledge_bases.1.id`) is shown next to. */
export function fieldOf(path: (string | number)[], form: AgentForm): string {
  const [head, index, leaf] = path;
  if (head === 'tools' && typeof index === 'number') return `tools.${index}.${leaf === 'timeout_ms' || leaf === 'approver_roles' || leaf === 'parameters' || leaf === 'endpoint' || leaf === 'description' ? leaf : 'name'}`;
  if (head === 'knowledge_bases' && typeof index === 'number') return `kb_filter.${form.knowledge_bases[index]?.id ?? ''}`;
  if (head === 'guardrails' && index === 'requires_approval') return 'tools';
  if (head === 'guardrails' && index === 'restricted_topics') return 'restricted_topics';
  if (head === 'resolution_question') return index === 'text' && typeof leaf === 'string' && (RESOLUTION_QUESTION_LOCALES as readonly string[]).includes(leaf) ? `resolution_question_text.${leaf}` : 'resolution_question';
  const joined = path.slice(0, 2).join('.');
  return FIELD_BY_PATH[joined] ?? String(head ?? 'form');
}

/** A service's validation error (`param` is a config path) as a field message; anything else is rethrown. */
export function fieldErrorOf(err: unknown, form: AgentForm): FieldErrors {
  if (err instanceof AppError && (err.code === 'parameter_invalid' || err.code === 'url_not_allowed')) {
    const path = (err.param ?? '').split('.').filter(Boolean).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    return { [path.length ? fieldOf(path, form) : 'form']: err.message.replace(/^Invalid agent config at [^:]+: /, '') };
  }
  throw err;
}
