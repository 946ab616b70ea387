/**
 * npm run bench:voice — voice turns through the Twilio webhook: a signed speech result in, TwiML out (the
 * run with retrieval and the local planner in the same turn, its spoken reply in a <Gather>). The stack is
 * the one `npm start` runs (bench/runs.bench.ts explains it): Temporal dev server, API and worker in one
 * process, the PostgreSQL server at DATABASE_URL, the example agent and help center with voice turned on.
 * Calls come in on a number whose flow connects them to the agent; each call asks five questions, one turn
 * at a time. Measures 200 turns (after 20 to warm up) and prints one JSON line: p50 / p95 turn latency.
 */
import type { AgentConfigInput } from '../src/agents/agent.schemas';
import { ensureExampleAgent } from '../src/app/dev-examples';
import { VOICE_WEBHOOK_PATHS } from '../src/channels/voice/voice-calls.service';
import { silentLogger } from '../src/observability/logger';
import { buildTestConfig } from '../test/support/config';
import { fictionalNumber, newCallSid, twilioVoiceClient } from '../test/support/twilio-voice';
import { machineInfo, percentile, round, startBenchStack } from './support';

const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const WARMUP = 20;
const TURNS_PER_CALL = 5;
const AUTH_TOKEN = 'bench-twilio-auth-token';
const PUBLIC_BASE_URL = 'https://voice.bench.example';
/** Questions the example help center answers (each a spoken reply, no handoff). */
const QUESTIONS = ['How do I reset my password?', 'How do I track my order?', 'How do I return an item?', 'What does the warranty cover?', 'What are your opening hours?', 'Is shipping free?'];


async function main() {
  const base = buildTestConfig({ rateLimit: { perSecond: 100_000, anonymousPerSecond: 100_000 } });
  const config = { ...base, http: { ...base.http, publicBaseUrl: PUBLIC_BASE_URL }, voice: { twilioAuthToken: AUTH_TOKEN, turnWaitMs: 10_000 } };
  const stack = await startBenchStack({ label: 'bench-voice', config });
  const { runtime, baseUrl } = stack;

  try {
    const { services } = runtime;
    const account = await services.accounts.createAccount({ name: 'Development' });
    const example = await ensureExampleAgent({ services, accountId: account.id, log: silentLogger() });
    const live = await services.agents.getLiveVersion({ accountId: account.id, livemode: false, agentId: example.agentId });
    await services.agents.updateDraft({ accountId: account.id, livemode: false, agentId: example.agentId, config: { ...(live.config as AgentConfigInput), channels: ['chat', 'sms', 'voice'] } });
    await services.agents.publishAgent({ accountId: account.id, livemode: false, agentId: example.agentId });
    const number = await services.phoneNumbers.provisionPhoneNumber({ accountId: account.id, livemode: false, number: fictionalNumber() });
    await services.phoneNumbers.setVoiceCallFlow({
      accountId: account.id,
      livemode: false,
      phoneNumberId: number.id,
      flow: { actions: [{ action: 'connect_agent', agent_id: example.agentId, transfer_to: '+14155550199' }] },
    });

    const post = twilioVoiceClient({ baseUrl, publicBaseUrl: PUBLIC_BASE_URL, authToken: AUTH_TOKEN });
    const outcomes = { spoken_reply: 0, transfer: 0, other: 0 };
    let call: { CallSid: string; From: string; To: string } | undefined;
    const turn = async (i: number) => {
      if (i % TURNS_PER_CALL === 0) {
        call = { CallSid: newCallSid(), From: fictionalNumber(), To: number.number };
        const incoming = await post(VOICE_WEBHOOK_PATHS.incoming, { ...call, CallStatus: 'ringing' });
        if (incoming.status !== 200) throw new Error(`incoming call: ${incoming.status} ${incoming.body}`);
      }
      const t = performance.now();
      const res = await post(VOICE_WEBHOOK_PATHS.speech, { ...call!, SpeechResult: QUESTIONS[i % QUESTIONS.length]!, Confidence: '0.9' });
      const ms = performance.now() - t;
      if (res.status === 200 && /<Gather[^>]*><Say[^>]*>[^<]+<\/Say><\/Gather>/.test(res.body)) outcomes.spoken_reply++;
      else if (res.status === 200 && /<Dial>/.test(res.body)) outcomes.transfer++;
      else outcomes.other++;
      return ms;
    };

    for (let i = 0; i < WARMUP; i++) await turn(i);
    outcomes.spoken_reply = outcomes.transfer = outcomes.other = 0;
    const startedWall = Date.now();
    const latencies: number[] = [];
    for (let i = 0; i < TURNS; i++) latencies.push(await turn(i));
    latencies.sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        bench: 'voice',
        turns: latencies.length,
        p50_ms: round(percentile(latencies, 50)),
        p95_ms: round(percentile(latencies, 95)),
        p99_ms: round(percentile(latencies, 99)),
        max_ms: round(latencies.at(-1)!),
        turns_per_call: TURNS_PER_CALL,
        outcomes,
        planner: config.planner.provider,
        retrieval: config.embeddings.enabled ? 'hybrid' : 'lexical',
        started_at: new Date(startedWall).toISOString(),
        machine: machineInfo(),
        stack: 'signed Twilio speech webhook → run (retrieval, local planner) → TwiML; API and worker in one process, Temporal dev server as npm start runs it, PostgreSQL server',
      }),
    );
  } finally {
    await stack.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
