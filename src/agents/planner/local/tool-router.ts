import { createHash } from 'node:crypto';
import type { PlannerTool } from '../port';
import { contentTerms, identifierWords } from '../../../platform/text';
import { isHowTo } from './local-intents';
import { scoreTool } from './lexical-tool-match';
import { extractArguments } from './tool-argument-extraction';
import { TOOL_ROUTING_CALIBRATION, type ToolRoutingCalibration } from './tool-routing-calibration';

/**
 * Tool choice by meaning. The customer message and each tool (its name in words, description and parameter
 * descriptions) are embedded with the service's embedding model; a tool's features are its cosine with the
 * message, its margin over the next-best tool, the lexical match of the old keyword path (a cue, not the
 * decision) and whether the message is phrased as a how-to question. A logistic fitted on the tool-routing
 * dev set (bench/tool-routing.ts) turns them into P(the customer wants this tool), which the planner compares
 * with calibrated thresholds (TOOL_ROUTING_CALIBRATION).
 *
 * Cost: a tool's vector is computed once per model and tool text (an agent version's tools are embedded on
 * its first message, then served from memory); the message's vector is usually already in the query cache
 * because retrieval embedded the same text. Without an embedder, or when it fails, `route` answers null and
 * the planner falls back to the lexical match.
 */

/** The embedding port the router needs (structurally the knowledge area's EmbeddingsPort). */
export interface TextEmbedder {
  readonly model: string;
  embed(input: { texts: string[]; kind: 'query' | 'passage'; signal?: AbortSignal }): Promise<Float32Array[]>;
}

export interface ToolFeatures {
  /** Cosine of the message with the tool's name and description. */
  cosine: number;
  /** Its lead over the next-best tool of the agent (0 for an agent with one tool). */
  margin: number;
  /** Its lead over the closest of the generic no-tool messages (NO_TOOL_ANCHORS). */
  anchor: number;
  /** Lexical match of the keyword path, 0..1. */
  lexical: number;
  /** The message is phrased as a how-to or policy question (1) or not (0). */
  howTo: number;
  /** Share of the tool's parameters whose values the message itself holds (an order number, an email…). */
  argumentsFound: number;
}

export interface RankedTool {
  tool: PlannerTool;
  /** Calibrated P(the customer wants this tool now), 0..1. */
  probability: number;
  features: ToolFeatures;
}

/**
 * The text a tool is embedded from: its name in words and its description. Parameter descriptions are not
 * embedded (on the dev set they made tools that share a parameter, such as an order number, look alike);
 * they count through `argumentsFound` instead.
 */
export function toolEmbeddingText(tool: PlannerTool): string {
  return `${identifierWords(tool.name).join(' ')}. ${tool.description.trim()}`;
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

/** Share of a tool's parameters whose values are in the message itself (no context, no earlier turns). */
export function argumentsFound(message: string, tool: PlannerTool, locale: string | null): number {
  const properties = Object.keys((tool.parameters?.properties ?? {}) as Record<string, unknown>);
  if (properties.length === 0) return 0;
  const found = extractArguments({ schema: tool.parameters, message, earlier: [], context: {}, locale, answering: false });
  return Object.keys(found.arguments).length / properties.length;
}

/** Lexical score is capped here: beyond two distinctive words it adds no evidence. */
const LEXICAL_CAP = 2;
const TOOL_VECTOR_CACHE = 4096;

export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Features of every tool for one message, given the vectors of the message, the tools and the anchors. */
export function toolFeatures(input: {
  message: string;
  locale: string | null;
  messageVector: Float32Array;
  tools: readonly PlannerTool[];
  toolVectors: Float32Array[];
  anchorVectors: Float32Array[];
}): ToolFeatures[] {
  const { message, messageVector, tools } = input;
  const cos = input.toolVectors.map((v) => cosine(messageVector, v));
  const anchor = Math.max(...input.anchorVectors.map((v) => cosine(messageVector, v)));
  const terms = contentTerms(message);
  const howTo = isHowTo(message) ? 1 : 0;
  return tools.map((tool, i) => {
    const others = cos.filter((_, j) => j !== i);
    return {
      cosine: cos[i]!,
      margin: others.length ? cos[i]! - Math.max(...others) : 0,
      anchor: cos[i]! - anchor,
      lexical: Math.min(LEXICAL_CAP, scoreTool(terms, tool)) / LEXICAL_CAP,
      howTo,
      argumentsFound: argumentsFound(message, tool, input.locale),
    };
  });
}

/** The calibrated probability of one tool's features. */
export function toolProbability(f: ToolFeatures, c: ToolRoutingCalibration = TOOL_ROUTING_CALIBRATION): number {
  const w = c.weights;
  const z =
    c.bias + w.cosine * f.cosine + w.margin * f.margin + w.anchor * f.anchor + w.lexical * f.lexical + w.howTo * f.howTo + w.argumentsFound * f.argumentsFound;
  return 1 / (1 + Math.exp(-z));
}

export class ToolRouter {
  private readonly toolVectors = new Map<string, Float32Array>();
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
      this.embedder.embed({ texts: [message], kind: 'query', signal }).then((v) => v[0]!),
      this.vectorsOf(tools, signal),
      this.anchors(signal),
    ]);
    const features = toolFeatures({ message, locale: input.locale, messageVector, tools, toolVectors, anchorVectors });
    return tools
      .map((tool, i) => ({ tool, features: features[i]!, probability: toolProbability(features[i]!, this.calibration) }))
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

  /** One vector per tool, embedded once per model and tool text (in one request for those not cached yet). */
  async vectorsOf(tools: readonly PlannerTool[], signal?: AbortSignal): Promise<Float32Array[]> {
    const keys = tools.map((t) => createHash('sha256').update(`${this.embedder.model}\u0000${toolEmbeddingText(t)}`).digest('base64'));
    const missing = [...new Set(keys.filter((k) => !this.toolVectors.has(k)))];
    if (missing.length) {
      const texts = missing.map((k) => toolEmbeddingText(tools[keys.indexOf(k)]!));
      const vectors = await this.catalogue.embed({ texts, kind: this.calibration.toolKind, signal });
      missing.forEach((k, i) => {
        if (this.toolVectors.size >= TOOL_VECTOR_CACHE) this.toolVectors.delete(this.toolVectors.keys().next().value!);
        this.toolVectors.set(k, vectors[i]!);
      });
    }
    return keys.map((k) => this.toolVectors.get(k)!);
  }
}
