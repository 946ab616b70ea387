import { createHash } from 'node:crypto';
import type { PlannerTool } from '../port';
import { contentTerms, inOtherLanguage } from '../../../platform/text';
import { asksAboutSubject, mentionsOwn, wantsAction } from './local-intents';
import { scoreTool } from './lexical-tool-match';
import { extractArguments } from './tool-argument-extraction';
import { TOOL_ROUTING_CALIBRATION, type ToolRoutingCalibration } from './tool-routing-calibration';
import { NO_TOOL_ANCHORS, TOOL_VIEWS, VIEW_KIND, toolViews, viewTexts, type ToolView } from './tool-views';

export { NO_TOOL_ANCHORS, toolEmbeddingText } from './tool-views';

/**
 * Tool choice by meaning. The customer message and each tool, seen through several texts (tool-views.ts:
 * its card, its description and the description's clauses as passages, synthesized requests, its parameters' descriptions, questions
 * about its subject), are embedded with the service's embedding model. A tool's features are its cosine
 * with the message per view, its margin over the agent's next-best tool, its lead over generic no-tool
 * messages, how much more the message looks like a request for it than a question about it, the lexical
 * match of the keyword path (a cue, not the decision), whether it is phrased as a question about a subject,
 * the share of its parameters whose values the message holds, and how much the message asks for an action
 * at all (a linear probe on its own vector, `needsTool`). A logistic fitted on every agent of the tool-routing
 * dev set (bench/tool-routing.ts; its figures come from fits that left the measured agent out) turns them
 * into P(the customer wants this tool), which the planner compares with
 * thresholds (TOOL_ROUTING_CALIBRATION).
 *
 * Cost: a tool's vectors are computed once per model and text (an agent version's tools are embedded on
 * its first message, one request per kind, then served from memory); the message's vector is usually
 * already in the query cache because retrieval embedded the same text (unless it holds an identifier, which
 * the router leaves out: one more request, ~0.1 s). Without an embedder, or when it
 * fails, `rank` throws and the planner falls back to the lexical match.
 */

/** The embedding port the router needs (structurally the knowledge area's EmbeddingsPort). */
export interface TextEmbedder {
  readonly model: string;
  embed(input: { texts: string[]; kind: 'query' | 'passage'; signal?: AbortSignal }): Promise<Float32Array[]>;
}

/** The features of one tool for one message; names are those of the calibration's weights. */
export const TOOL_FEATURES = [
  'card',
  'cardMargin',
  'cardLead',
  'description',
  'descriptionMargin',
  'descriptionLead',
  'clause',
  'clauseMargin',
  'clauseLead',
  'request',
  'requestMargin',
  'requestLead',
  'parameters',
  'parametersMargin',
  'requestOverQuestion',
  'lexical',
  'aboutSubject',
  'argumentsFound',
  'needsTool',
  'ownThings',
  'wantsAction',
  'otherLanguage',
] as const;
/**
 * Per view (card, description, clause, request, parameters): `<view>`: the best cosine of the message
 * with the view's texts; `<view>Margin`: its lead over the agent's next-best tool on that view (0 for an
 * agent with one tool); `<view>Lead`: its lead over the closest generic no-tool message
 * (NO_TOOL_ANCHORS). `requestOverQuestion`: the request view's cosine minus the questions view's;
 * `lexical`: the keyword path's score, 0..1; `aboutSubject`: the message is phrased as a question about a
 * subject (how-to, policy, price, consequence, definition: 1) or not (0); `argumentsFound`: share of the
 * tool's parameters whose values the message itself holds (an order number, an email…);
 * `needsTool`: the calibration's probe on the message's own vector, the log-odds that the message asks
 * for an action at all (the same for every tool of one message; 0 without a probe);
 * `ownThings`: the message names the customer's own things ("my order", "mein Konto", an order number:
 * mentionsOwn, 1 or 0); `wantsAction`: it asks for something to be done ("I'd like…", "can you…", "je
 * voudrais…": wantsAction, 1 or 0); `otherLanguage`: the message is in another language than the tool's
 * description (inOtherLanguage): its cosines with every view are lower for the same meaning.
 */
export type ToolFeatures = Record<(typeof TOOL_FEATURES)[number], number>;

export interface RankedTool {
  tool: PlannerTool;
  /** Calibrated P(the customer wants this tool now), 0..1. */
  probability: number;
  features: ToolFeatures;
}

/** A tool's vectors per view. */
export type ToolVectors = Record<ToolView, Float32Array[]>;

/** Share of a tool's parameters whose values are in the message itself (no context, no earlier turns). */
export function argumentsFound(message: string, tool: PlannerTool, locale: string | null): number {
  const properties = Object.keys((tool.parameters?.properties ?? {}) as Record<string, unknown>);
  if (properties.length === 0) return 0;
  const found = extractArguments({ schema: tool.parameters, message, earlier: [], context: {}, locale, answering: false });
  return Object.keys(found.arguments).length / properties.length;
}

/** Lexical score is capped here: beyond two distinctive words it adds no evidence. */
const LEXICAL_CAP = 2;
const VECTOR_CACHE = 8192;

export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The views whose cosine, margin and lead are features, with the features' name. */
const VIEWS_WITH_LEAD: ReadonlyArray<[ToolView, string]> = [
  ['card', 'card'],
  ['description', 'description'],
  ['clauses', 'clause'],
  ['requests', 'request'],
];

const best = (q: Float32Array, vs: readonly Float32Array[]) => Math.max(...vs.map((v) => cosine(q, v)));

/**
 * The message as the router embeds it: without identifiers (tokens holding three digits or more, email
 * addresses), which say nothing about the tool meant but pull the message's vector away from every tool.
 * The arguments are read from the full message.
 */
export function withoutIdentifiers(message: string): string {
  const kept = message.split(/\s+/).filter((t) => !t.includes('@') && (t.match(/\d/g)?.length ?? 0) < 3);
  const text = kept.join(' ').replace(/\s+([,.?!])/g, '$1').replace(/^[\s,]+|[\s,]+$/g, '');
  return text || message.trim();
}

/**
 * Features of every tool for one message, given the vectors of the message (`withoutIdentifiers`), the
 * tools and the anchors.
 */
export function toolFeatures(input: {
  message: string;
  locale: string | null;
  messageVector: Float32Array;
  tools: readonly PlannerTool[];
  toolVectors: ToolVectors[];
  anchorVectors: Float32Array[];
  /** The calibration's probe on the message vector (ToolRoutingCalibration.needsTool). */
  needsTool?: ToolRoutingCalibration['needsTool'];
}): ToolFeatures[] {
  const { message, messageVector: q, tools, toolVectors } = input;
  const anchor = best(q, input.anchorVectors);
  const cos = Object.fromEntries(TOOL_VIEWS.map((view) => [view, toolVectors.map((v) => best(q, v[view]))])) as Record<ToolView, number[]>;
  const margin = (view: ToolView, i: number) => {
    const others = cos[view].filter((_, j) => j !== i);
    return others.length ? cos[view][i]! - Math.max(...others) : 0;
  };
  const terms = contentTerms(message);
  const aboutSubject = asksAboutSubject(message) ? 1 : 0;
  const needsTool = needsToolLogit(q, input.needsTool);
  const ownThings = mentionsOwn(message) ? 1 : 0;
  const wants = wantsAction(message) ? 1 : 0;
  return tools.map((tool, i) => ({
    ...(Object.fromEntries(
      VIEWS_WITH_LEAD.flatMap(([view, name]) => [
        [name, cos[view][i]!],
        [`${name}Margin`, margin(view, i)],
        [`${name}Lead`, cos[view][i]! - anchor],
      ]),
    ) as Pick<ToolFeatures, 'card' | 'cardMargin' | 'cardLead' | 'description' | 'descriptionMargin' | 'descriptionLead' | 'clause' | 'clauseMargin' | 'clauseLead' | 'request' | 'requestMargin' | 'requestLead'>),
    parameters: cos.parameters[i]!,
    parametersMargin: margin('parameters', i),
    requestOverQuestion: cos.requests[i]! - cos.questions[i]!,
    lexical: Math.min(LEXICAL_CAP, scoreTool(terms, tool)) / LEXICAL_CAP,
    aboutSubject,
    argumentsFound: argumentsFound(message, tool, input.locale),
    needsTool,
    ownThings,
    wantsAction: wants,
    otherLanguage: inOtherLanguage(message, tool.description) ? 1 : 0,
  }));
}

/** The log-odds of the calibration's `needsTool` probe for a message vector (0 without a probe or for a vector of another size). */
export function needsToolLogit(messageVector: Float32Array, probe: ToolRoutingCalibration['needsTool']): number {
  if (!probe || probe.weights.length !== messageVector.length) return 0;
  let z = probe.bias;
  for (let i = 0; i < messageVector.length; i++) z += probe.weights[i]! * messageVector[i]!;
  return z;
}

/**
 * Throws when a calibration handed to the planner cannot be the router's: weights for unknown features,
 * a non-finite number, thresholds outside [0, 1] or asking below calling. (The shipped one is checked by
 * the unit tests; a refit pasted by hand is checked when the planner is built.)
 */
export function assertToolRoutingCalibration(c: ToolRoutingCalibration): void {
  const problems: string[] = [];
  const unknown = Object.keys(c.weights).filter((k) => !(TOOL_FEATURES as readonly string[]).includes(k));
  if (unknown.length) problems.push(`unknown features: ${unknown.join(', ')}`);
  const unknownAny = Object.keys(c.anyTool?.weights ?? {}).filter((k) => !ANY_TOOL_FEATURES.includes(k));
  if (unknownAny.length) problems.push(`unknown anyTool features: ${unknownAny.join(', ')}`);
  const numbers = [c.bias, c.callThreshold, c.askThreshold, ...Object.values(c.weights), ...(c.needsTool ? [c.needsTool.bias, ...c.needsTool.weights] : []), ...(c.anyTool ? [c.anyTool.bias, ...Object.values(c.anyTool.weights)] : [])];
  if (!numbers.every(Number.isFinite)) problems.push('a weight, bias or threshold is not a finite number');
  if (!(c.callThreshold >= 0 && c.callThreshold <= 1 && c.askThreshold >= 0 && c.askThreshold <= 1)) problems.push('thresholds must lie in [0, 1]');
  if (c.askThreshold < c.callThreshold) problems.push('askThreshold must be at least callThreshold');
  if (problems.length) throw new Error(`Tool routing calibration for ${c.model}: ${problems.join('; ')}`);
}

/** The calibrated probability of one tool's features (the one-stage model: no `anyTool`). */
export function toolProbability(f: ToolFeatures, c: ToolRoutingCalibration = TOOL_ROUTING_CALIBRATION): number {
  return 1 / (1 + Math.exp(-toolLogit(f, c)));
}

const toolLogit = (f: ToolFeatures, c: Pick<ToolRoutingCalibration, 'bias' | 'weights'>) => TOOL_FEATURES.reduce((a, k) => a + (c.weights[k] ?? 0) * f[k], c.bias);

/** The features that are the same for every tool of one message (the first stage reads them once). */
export const MESSAGE_FEATURES = ['needsTool', 'aboutSubject', 'ownThings', 'wantsAction'] as const;
/** The tool features whose best over the agent's tools the first stage reads (`max_<feature>`). */
export const PER_TOOL_FEATURES = TOOL_FEATURES.filter((k) => !(MESSAGE_FEATURES as readonly string[]).includes(k) && k !== 'otherLanguage');
/** The first stage's features, by name: `max_<feature>` for PER_TOOL_FEATURES, then MESSAGE_FEATURES. */
export const ANY_TOOL_FEATURES = [...PER_TOOL_FEATURES.map((k) => `max_${k}`), ...MESSAGE_FEATURES];

/** The first stage's features of one message, from its tools' features. */
export function anyToolFeatures(features: readonly ToolFeatures[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of PER_TOOL_FEATURES) out[`max_${k}`] = Math.max(...features.map((f) => f[k]));
  for (const k of MESSAGE_FEATURES) out[k] = features[0]?.[k] ?? 0;
  return out;
}

/**
 * The calibrated probability of each tool of one message (in `features` order): with `anyTool`, P(some tool)
 * times the tool's softmax share; without it, each tool's own logistic.
 */
export function toolProbabilities(features: readonly ToolFeatures[], c: ToolRoutingCalibration = TOOL_ROUTING_CALIBRATION): number[] {
  if (!c.anyTool || features.length === 0) return features.map((f) => toolProbability(f, c));
  const m = anyToolFeatures(features);
  const any = 1 / (1 + Math.exp(-ANY_TOOL_FEATURES.reduce((a, k) => a + (c.anyTool!.weights[k] ?? 0) * m[k]!, c.anyTool.bias)));
  const logits = features.map((f) => toolLogit(f, c));
  const top = Math.max(...logits);
  const e = logits.map((z) => Math.exp(z - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((v) => (any * v) / sum);
}

export class ToolRouter {
  private readonly vectors = new Map<string, Float32Array>();
  private anchorVectors: Promise<Float32Array[]> | null = null;

  /**
   * `embedder` embeds messages (the query port: short timeout, vectors shared with retrieval);
   * `catalogue` embeds tool texts and anchors once each (default `embedder`; the service passes its
   * long-timeout port so an agent version's first message is not cut short by the query timeout).
   */
  constructor(
    private readonly embedder: TextEmbedder,
    private readonly calibration: ToolRoutingCalibration = TOOL_ROUTING_CALIBRATION,
    private readonly catalogue: TextEmbedder = embedder,
  ) {}

  get model(): string {
    return this.embedder.model;
  }

  /** Tools ranked by calibrated probability, best first; throws when the embedder fails. */
  async rank(input: { message: string; locale: string | null; tools: readonly PlannerTool[]; signal?: AbortSignal }): Promise<RankedTool[]> {
    const { message, tools, signal } = input;
    if (tools.length === 0 || !message.trim()) return [];
    const [messageVector, toolVectors, anchorVectors] = await Promise.all([
      this.embedder.embed({ texts: [withoutIdentifiers(message)], kind: 'query', signal }).then((v) => v[0]!),
      this.vectorsOf(tools, signal),
      this.anchors(signal),
    ]);
    const features = toolFeatures({ message, locale: input.locale, messageVector, tools, toolVectors, anchorVectors, needsTool: this.calibration.needsTool });
    const probabilities = toolProbabilities(features, this.calibration);
    return tools
      .map((tool, i) => ({ tool, features: features[i]!, probability: probabilities[i]! }))
      .sort((a, b) => b.probability - a.probability);
  }

  /** The no-tool anchors' vectors, embedded once (again after a failure). */
  anchors(signal?: AbortSignal): Promise<Float32Array[]> {
    if (!this.anchorVectors) {
      this.anchorVectors = this.catalogue.embed({ texts: NO_TOOL_ANCHORS, kind: 'query', signal });
      this.anchorVectors.catch(() => (this.anchorVectors = null));
    }
    return this.anchorVectors;
  }

  /**
   * Each tool's vectors per view, embedded once per model, kind and text: the texts not cached yet go in
   * one request per kind.
   */
  async vectorsOf(tools: readonly PlannerTool[], signal?: AbortSignal): Promise<ToolVectors[]> {
    const views = tools.map(toolViews);
    // Each (kind, text) hashed once per call: the cache check, the store and the read below share it.
    const keys = new Map<string, string>();
    const key = (kind: string, text: string) => {
      const id = `${kind}\u0000${text}`;
      let k = keys.get(id);
      if (k === undefined) keys.set(id, (k = createHash('sha256').update(`${this.embedder.model}\u0000${id}`).digest('base64')));
      return k;
    };
    for (const kind of ['query', 'passage'] as const) {
      const texts = views.flatMap((v) => TOOL_VIEWS.filter((view) => VIEW_KIND[view] === kind).flatMap((view) => viewTexts(v, view)));
      const missing = [...new Set(texts.filter((t) => !this.vectors.has(key(kind, t))))];
      if (missing.length === 0) continue;
      const vectors = await this.catalogue.embed({ texts: missing, kind, signal });
      missing.forEach((t, i) => {
        if (this.vectors.size >= VECTOR_CACHE) this.vectors.delete(this.vectors.keys().next().value!);
        this.vectors.set(key(kind, t), vectors[i]!);
      });
    }
    return views.map(
      (v) => Object.fromEntries(TOOL_VIEWS.map((view) => [view, viewTexts(v, view).map((t) => this.vectors.get(key(VIEW_KIND[view], t))!)])) as ToolVectors,
    );
  }
}
