/**
 * Exploration (issue 30, not used by the service): two ideas for the answers' two limits, each measured
 * outside the service with the local model. See docs/decisions/answers-cohort-and-title-vectors.md.
 *
 * `cohort`: an off-topic question in an eight-record base has seven unrelated records as its background, so
 * its nearest record "stands out". Here the background (`cos_over_background`, `sentence_over_background`)
 * is the mean of the top K of the other candidates *and* a fixed cohort of other businesses' help-centre
 * sentences (COHORT below: banks, airlines, clinics, utilities, software; nothing about a shop), with the
 * shipped weights; rates at floors 0.3–0.9 against the shipped score, on the collected calibration sets
 * and bench:answers' help-centre batches (needs their collected files: see offset-features.ts).
 *
 * `titles`: retrieval's top-1 when a record's title is also embedded as a *query* (the model's symmetric
 * side: a customer's question is nearer a title phrased like one) and its cosine is added to the passage's.
 * Pure cosine ranking (no BM25, no fusion), so only the differences between rows mean anything.
 *
 *   BENCH_DATA=<shared data> npx tsx bench/calibration/ranking-explorations.ts cohort   (K=9 by default)
 *   BENCH_DATA=<shared data> npx tsx bench/calibration/ranking-explorations.ts titles
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config/env';
import { EXAMPLE_FAQ } from '../../src/app/dev-examples';
import { passageEmbeddingText, sentenceEmbeddingTexts } from '../../src/knowledge/index/embedding-text';
import { OpenAiEmbeddingsClient } from '../../src/knowledge/index/embeddings.client';
import { startEmbeddingsServer } from '../../src/knowledge/index/embeddings-server';
import { DEFAULT_FUSION, dot, fusionFeatures, type FusionInput } from '../../src/knowledge/index/scoring';
import { freePort } from '../../src/platform/free-port';
import { ANSWERS_DEV_IN_SCOPE, ANSWERS_HELD_OUT_IN_SCOPE } from '../answers-questions';
import { CALIBRATION_DIR, type CollectedQuery, type CollectedSet } from './collect';
import * as sets from './sets';

/** Other businesses' help-centre sentences: the background an off-topic question is read against. */
const COHORT = `Your monthly account statement is available to download from online banking on the first business day of each month.
To dispute a card transaction, call the number on the back of your card within 60 days of the statement date.
Mobile data plans renew automatically each billing cycle unless you cancel before the renewal date.
International roaming can be turned on in the app under Plan settings; daily charges apply abroad.
Checked baggage allowance depends on your fare; economy light fares include cabin baggage only.
Flights can be changed up to two hours before departure for a fee that depends on the fare type.
Check-in at the hotel starts at 3 pm and check-out is at 11 am; late check-out is subject to availability.
Pets are welcome in selected rooms for a nightly cleaning fee.
Table reservations can be made online up to 30 days in advance; groups over eight please call us.
Our menu lists allergens for every dish; ask your server about gluten-free options.
Membership can be frozen for up to three months per year for medical reasons.
Group fitness classes must be booked in the app at least one hour before they start.
To file an insurance claim, submit the claim form with photos of the damage and your policy number.
Your premium may change at renewal based on your claims history and address.
Meter readings can be submitted online; estimated bills are issued when no reading is received.
If you smell gas, leave the building and call the emergency line immediately.
Appointments at the clinic can be cancelled free of charge up to 24 hours in advance.
Prescription refills are ready for pickup at the pharmacy counter two working days after the request.
Course enrolment opens in August; tuition fees are due before the first day of term.
Students can request a transcript from the registrar's office, which takes five working days.
Passport applications take about six weeks; urgent appointments are available for an extra fee.
Parking permits are issued by the city council and must be displayed in the windscreen.
Rental cars must be returned with a full tank or a refuelling charge applies.
Drivers under 25 pay a young driver surcharge on every rental.
Software licences can be transferred to a new computer by deactivating the old one first.
Our app supports the two latest versions of iOS and Android.
Subscriptions can be cancelled at any time and stay active until the end of the paid period.
Volunteers must complete a background check before their first shift.
Donations are tax deductible and a receipt is emailed within a week.
Our cloud service guarantees 99.9 percent uptime; status updates are posted on our status page.
API rate limits are 100 requests per minute per key.
Two-factor authentication adds a code from your phone to every sign-in.
Your personal data is processed in line with our privacy policy and never sold.
You can request a copy or deletion of your personal data from your privacy settings.
Cookies help us remember your preferences; you can change them in the cookie settings.
Tickets for the train can be bought at the station or in the app.
Lost property can be collected from the station office within 30 days.`.split('\n');

const σ = (z: number) => 1 / (1 + Math.exp(-z));
const r3 = (x: number) => Math.round(x * 1000) / 1000;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const argmax = (xs: number[]) => xs.reduce((b, v, i) => (v > xs[b]! ? i : b), 0);

async function withModel<T>(fn: (embed: (texts: string[], kind: 'query' | 'passage') => Promise<Float32Array[]>) => Promise<T>): Promise<T> {
  const server = await startEmbeddingsServer({ port: await freePort(), threads: 1 });
  const client = new OpenAiEmbeddingsClient({ url: server.url, model: loadConfig({}).embeddings.model, inputType: true, timeoutMs: 600_000 });
  try {
    return await fn(async (texts, kind) => {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += 32) out.push(...(await client.embed({ texts: texts.slice(i, i + 32), kind })));
      return out;
    });
  } finally {
    await server.stop();
  }
}

/** The shipped features, the two background features read against the other candidates and the cohort. */
function cohortFeatures(q: CollectedQuery, cohortCos: number[], k: number): number[][] {
  const f = fusionFeatures(q.cands as FusionInput[], { passages: q.passages });
  const top = [...cohortCos].sort((a, b) => b - a).slice(0, k);
  const bg = (xs: number[], i: number) => mean([...xs.filter((_, j) => j !== i), ...top].sort((a, b) => b - a).slice(0, k));
  const cos = q.cands.map((c) => c.cos);
  const sent = q.cands.map((c) => c.sentCos ?? c.cos);
  return f.map((row, i) => row.map((v, j) => (j === 3 ? cos[i]! - bg(cos, i) : j === 5 ? sent[i]! - bg(sent, i) : v)));
}

function rates(s: CollectedSet, features: (q: CollectedQuery) => number[][], floor: number) {
  let inN = 0, right = 0, wrong = 0, offN = 0, handed = 0;
  for (const q of s.queries) {
    if (q.answerable) inN++;
    else offN++;
    if (!q.cands.length) {
      if (!q.answerable) handed++;
      continue;
    }
    const sc = features(q).map((r) => σ(r.reduce((z, v, i) => z + v * (DEFAULT_FUSION.weights[i] ?? 0), DEFAULT_FUSION.bias)));
    const best = argmax(sc);
    const answered = sc[best]! >= floor;
    if (q.answerable && answered) {
      if ((q.rel[q.cands[best]!.doc] ?? 0) > 0) right++;
      else wrong++;
    } else if (!q.answerable && !answered) handed++;
  }
  return `${r3(right / Math.max(1, inN))}/${r3(wrong / Math.max(1, inN))}/${offN ? r3(handed / offN) : '-'}`;
}

async function cohort() {
  const k = Number(process.env.K ?? 9);
  const loaded = ['help_centre', 'faq_small', 'faq', 'xquad', 'answers_dev', 'answers_held']
    .map((n) => path.join(CALIBRATION_DIR, `${n}.json`))
    .filter((f) => fs.existsSync(f))
    .map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as CollectedSet);
  await withModel(async (embed) => {
    const cohortVectors = await embed(COHORT, 'passage');
    for (const s of loaded) {
      const qv = await embed(s.queries.map((q) => q.text), 'query');
      const cc = new Map(s.queries.map((q, i) => [q, cohortVectors.map((c) => dot(c, qv[i]!))]));
      const floors = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
      const line = (f: (q: CollectedQuery) => number[][]) => Object.fromEntries(floors.map((fl) => [fl, rates(s, f, fl)]));
      console.log(JSON.stringify({ set: s.set, k, rates: 'right/wrong/off_topic_handed_off',
        shipped: line((q) => fusionFeatures(q.cands as FusionInput[], { passages: q.passages })),
        cohort: line((q) => cohortFeatures(q, cc.get(q)!, k)) }));
    }
  });
}

async function titles() {
  const hcDocs = EXAMPLE_FAQ.map((r) => ({ id: r.title, title: r.title, text: r.content }));
  const hc = (qs: [string, string][]) => qs.map(([text, title]) => ({ text, right: [title] }));
  const f = sets.faq();
  const faqQs = f.queries.filter((q) => q.answerable).map((q) => ({ text: q.text, right: Object.keys(q.rel).filter((d) => q.rel[d]! > 0) }));
  const runs = [
    { name: 'help_centre_dev', docs: hcDocs, qs: hc(ANSWERS_DEV_IN_SCOPE) },
    { name: 'help_centre_held_out', docs: hcDocs, qs: hc(ANSWERS_HELD_OUT_IN_SCOPE) },
    { name: 'faq', docs: f.docs.map((d) => ({ id: d.id, title: d.title, text: d.text })), qs: faqQs },
  ];
  await withModel(async (embed) => {
    for (const r of runs) {
      const texts = r.docs.map((d) => ({ title: d.title, heading: null, content: d.text }));
      const passage = await embed(texts.map(passageEmbeddingText), 'passage');
      const sentences = await Promise.all(texts.map(async (t) => (sentenceEmbeddingTexts(t).length ? embed(sentenceEmbeddingTexts(t), 'passage') : [])));
      const title = await embed(r.docs.map((d) => d.title), 'query');
      const questions = await embed(r.qs.map((q) => q.text), 'query');
      const rankings: Record<string, (qv: Float32Array, i: number) => number> = {
        passage: (qv, i) => dot(passage[i]!, qv),
        best_sentence: (qv, i) => Math.max(dot(passage[i]!, qv), ...sentences[i]!.map((s) => dot(s, qv))),
        title_as_query: (qv, i) => dot(title[i]!, qv),
        passage_plus_title: (qv, i) => dot(passage[i]!, qv) + dot(title[i]!, qv),
        best_sentence_plus_title: (qv, i) => Math.max(dot(passage[i]!, qv), ...sentences[i]!.map((s) => dot(s, qv))) + dot(title[i]!, qv),
      };
      const top1 = Object.fromEntries(Object.entries(rankings).map(([name, score]) => [name, r3(mean(r.qs.map((q, qi) => {
        const best = argmax(r.docs.map((_, i) => score(questions[qi]!, i)));
        return q.right.includes(r.docs[best]!.id) ? 1 : 0;
      })))]));
      console.log(JSON.stringify({ set: r.name, questions: r.qs.length, documents: r.docs.length, top1 }));
    }
  });
}

const mode = process.argv[2];
(mode === 'cohort' ? cohort() : mode === 'titles' ? titles() : Promise.reject(new Error('usage: ranking-explorations.ts cohort|titles')))
  .then(() => process.exit(0), (err) => {
    console.error(err);
    process.exit(1);
  });
