import { createHash } from 'node:crypto';
import { endianness } from 'node:os';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { AppError, notFound } from '../domain/errors';
import type { Scope } from '../domain/principal';
import type { Logger } from '../observability/logger';
import { detectLanguage } from '../platform/text';
import type { EmbeddingsPort } from './index/embeddings.client';
import { decodeVector, encodeVector } from './index/vector-index.repo';
import { centred, clusterVectors, dot, GAP_SIMILARITY, lexicalVector, meanVector } from './knowledge-gap-clusters';
import { KnowledgeGapsRepo, type GapQuestionRow } from './knowledge-gaps.repo';
import type { KnowledgeGapObject, KnowledgeGapReportObject } from './knowledge-gaps.schemas';

const DAY_MS = 86_400_000;
/** The longest period a report covers (its previous period doubles what is read). */
const MAX_PERIOD_DAYS = 92;
/** Texts per embeddings request while the report embeds questions it has not seen. */
const EMBED_BATCH = 32;
/** Stored vectors are little-endian float32: on such a machine they are read without a copy per float. */
const fromStored = endianness() === 'LE' ? (buf: Buffer) => new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)) : decodeVector;

/**
 * Ordinary customer questions of several topics and languages: their mean vector is the common direction
 * the model gives every question, taken out before clustering (`centred`). Fixed, so the reference is the
 * same every day.
 */
const REFERENCE_QUESTIONS = [
  'How do I reset my password?', 'Where is my parcel?', 'Can I change my delivery address?', 'What are your opening hours?',
  'How much does shipping cost?', 'I want to cancel my subscription', 'Wie kann ich meine Bestellung zurücksenden?',
  'Comment suivre ma commande ?', 'Do you ship to Canada?', 'My invoice is wrong', 'Is this product in stock?', 'How do I contact support?',
];

export interface KnowledgeGapsInput extends Scope {
  agentId: string;
  from?: Date;
  to?: Date;
  limit?: number;
}

/** A question of the report with its vector slot and period. */
interface Question extends GapQuestionRow {
  current: boolean;
  text: number;
  language: string;
}

/**
 * The knowledge-gap report (GET /v1/analytics/knowledge_gaps, the console's Gaps page): an agent's
 * customer questions that ended in `no_supporting_source` or `low_confidence` in a period, grouped by
 * meaning (docs/decisions/knowledge-gaps-clustering.md), each group with its impact, trend, examples,
 * channels, languages, near-miss passage and the human's reply; most conversations first.
 */
export class KnowledgeGapsService {
  private readonly repo = new KnowledgeGapsRepo();
  private reference: Promise<Float32Array> | undefined;

  constructor(
    private readonly deps: {
      db: Kysely<DB>;
      /** The embedding model (undefined with EMBEDDINGS=off: lexical grouping). */
      embeddings?: EmbeddingsPort;
      /** How long one report may spend embedding questions it has not seen (the rest waits for the next). */
      embedBudgetMs?: number;
      log?: Logger;
      clock?: () => Date;
    },
  ) {}

  async getKnowledgeGaps(input: KnowledgeGapsInput): Promise<KnowledgeGapReportObject> {
    return (await this.groupKnowledgeGaps(input)).report;
  }

  /** The report and, per group id, the message ids of all its questions of the period (tests read them). */
  async groupKnowledgeGaps(input: KnowledgeGapsInput): Promise<{ report: KnowledgeGapReportObject; members: Map<string, string[]> }> {
    const { db } = this.deps;
    const to = input.to ?? this.deps.clock?.() ?? new Date();
    const from = input.from ?? new Date(to.getTime() - 7 * DAY_MS);
    if (from.getTime() >= to.getTime()) throw new AppError('parameter_unprocessable', 'Invalid from: the period must start before `to`', { param: 'from' });
    if (to.getTime() - from.getTime() > MAX_PERIOD_DAYS * DAY_MS) {
      throw new AppError('parameter_unprocessable', `Invalid from: a period covers at most ${MAX_PERIOD_DAYS} days`, { param: 'from' });
    }
    if (!(await this.repo.agentExists(db, input, input.agentId))) throw notFound('agent', input.agentId, 'agent_id');
    const previousFrom = new Date(from.getTime() - (to.getTime() - from.getTime()));
    const rows = await this.repo.listGapQuestions(db, { ...input, from: previousFrom, to });

    // One vector per distinct text, in order of first appearance (rows are by time, then run id).
    const texts: string[] = [];
    const slot = new Map<string, number>();
    const questions: Question[] = rows.map((r) => {
      const key = r.content.trim();
      let t = slot.get(key);
      if (t === undefined) {
        t = texts.length;
        slot.set(key, t);
        texts.push(key);
      }
      const current = r.created_at.getTime() >= from.getTime();
      return { ...r, current, text: t, language: current ? detectLanguage(r.content, r.locale) : '' };
    });
    const { vectors, method, note, threshold } = await this.vectorsOf(texts);

    // Both periods are grouped together, oldest first: the previous period's questions open groups too
    // (a group keeps the centre its history gave it from one day to the next) and count for trends only.
    const withVector = texts.map((_, t) => t).filter((t) => vectors[t]);
    const clustering = clusterVectors(withVector.map((t) => vectors[t]!), threshold);
    const groupOfText = new Map<number, number>(withVector.map((t, i) => [t, clustering.groupOf[i]!]));
    const all: Question[][] = clustering.leaders.map(() => []);
    let pending = 0;
    for (const q of questions) {
      const g = groupOfText.get(q.text);
      if (g === undefined) pending += q.current ? 1 : 0;
      else all[g]!.push(q);
    }
    const kept = all.map((m, g) => ({ m, g })).filter(({ m }) => m.some((q) => q.current));
    const members = kept.map(({ m }) => m.filter((q) => q.current));
    const previous = kept.map(({ m }) => m.filter((q) => !q.current).length);
    const centreOf = (i: number) => clustering.centres.subarray(kept[i]!.g * clustering.dims, (kept[i]!.g + 1) * clustering.dims);
    const firstOf = (i: number) => kept[i]!.m[0]!.message_id;
    const unsorted = members.map((m, i) => this.toGap(m, previous[i]!, vectors, centreOf(i), firstOf(i)));
    const order = unsorted.map((_, i) => i).sort((i, j) => {
      const a = unsorted[i]!;
      const b = unsorted[j]!;
      return b.conversations - a.conversations || b.questions - a.questions || a.first_asked_at.localeCompare(b.first_asked_at) || a.id.localeCompare(b.id);
    });
    const groups = order.map((i) => unsorted[i]!);
    const current = questions.filter((q) => q.current);
    const memberIds = new Map(groups.map((g, i) => [g.id, members[order[i]!]!.map((q) => q.message_id)]));
    const report: KnowledgeGapReportObject = {
      object: 'knowledge_gap_report',
      agent_id: input.agentId,
      livemode: input.livemode,
      from: from.toISOString(),
      to: to.toISOString(),
      previous_from: previousFrom.toISOString(),
      grouping: { method, model: method === 'embeddings' ? this.deps.embeddings!.model : null, threshold, note },
      questions: current.length,
      conversations: new Set(current.map((q) => q.conversation_id)).size,
      pending_questions: pending,
      total_groups: groups.length,
      data: groups.slice(0, input.limit ?? 20),
    };
    return { report, members: memberIds };
  }

  /** One group as the API shows it. */
  private toGap(m: Question[], previousCount: number, vectors: (Float32Array | undefined)[], centre: Float32Array, firstMessageId: string): KnowledgeGapObject {
    const count = (pick: (q: Question) => string) => {
      const out: Record<string, number> = {};
      for (const q of m) out[pick(q)] = (out[pick(q)] ?? 0) + 1;
      return out;
    };
    // Examples: different texts, nearest the centre first (then the earlier).
    const seen = new Set<number>();
    const byCloseness = m
      .filter((q) => !seen.has(q.text) && seen.add(q.text))
      .map((q) => ({ q, c: dot(vectors[q.text]!, centre) }))
      .sort((a, b) => b.c - a.c)
      .slice(0, 3)
      .map(({ q }) => q);
    let nearMiss: KnowledgeGapObject['near_miss'] = null;
    for (const q of m) {
      const score = typeof q.best?.score === 'number' ? q.best.score : undefined;
      if (score === undefined || (nearMiss && nearMiss.score >= score)) continue;
      nearMiss = {
        title: String(q.best!.title ?? ''), snippet: String(q.best!.snippet ?? ''), score,
        knowledge_base_id: q.best!.source ?? null, source_id: q.best!.source_id ?? null, url: q.best!.url ?? null, run_id: q.run_id,
      };
    }
    const replied = [...m].reverse().find((q) => q.human_reply);
    const conversations = new Set(m.map((q) => q.conversation_id)).size;
    const size = m.length;
    const trend = previousCount === 0 ? 'new' : size > previousCount * 1.25 ? 'rising' : size < previousCount * 0.8 ? 'falling' : 'steady';
    return {
      id: `gap_${createHash('sha256').update(firstMessageId).digest('hex').slice(0, 20)}`,
      object: 'knowledge_gap',
      conversations,
      questions: size,
      previous_period_questions: previousCount,
      trend,
      examples: byCloseness.map((q) => ({
        text: q.content, message_id: q.message_id, conversation_id: q.conversation_id, run_id: q.run_id, channel: q.channel,
        language: q.language, asked_at: q.created_at.toISOString(),
      })),
      channels: count((q) => q.channel),
      languages: count((q) => q.language),
      reasons: count((q) => q.reason),
      near_miss: nearMiss,
      human_reply: replied ? { text: replied.human_reply!, conversation_id: replied.conversation_id } : null,
      first_asked_at: m[0]!.created_at.toISOString(),
      last_asked_at: m.at(-1)!.created_at.toISOString(),
    };
  }

  /**
   * The texts' unit vectors for clustering: the embedding model's (cached by text, the common direction
   * taken out) within the embedding budget, a text not embedded in time left undefined; lexical vectors
   * with EMBEDDINGS=off or when the model does not answer.
   */
  private async vectorsOf(texts: string[]): Promise<{ vectors: (Float32Array | undefined)[]; method: 'embeddings' | 'lexical'; note: string | null; threshold: number }> {
    const lexical = (note: string) => ({ vectors: texts.map(lexicalVector), method: 'lexical' as const, note, threshold: GAP_SIMILARITY.lexical });
    const { embeddings } = this.deps;
    if (!embeddings) return lexical('EMBEDDINGS=off: questions are grouped by the words they share, not by meaning');
    try {
      const reference = await this.referenceMean(embeddings);
      const raw = await this.embedCached(embeddings, texts);
      const present = raw.filter((v): v is Float32Array => v !== undefined);
      const moved = centred(present, reference);
      let k = 0;
      const vectors = raw.map((v) => (v ? moved[k++] : undefined));
      const left = raw.length - present.length;
      return { vectors, method: 'embeddings', note: left ? `${left} questions were not embedded yet; ask again to include them` : null, threshold: GAP_SIMILARITY.embeddings };
    } catch (err) {
      this.deps.log?.warn({ err: (err as Error).message }, 'Knowledge gaps: the embedding model did not answer; grouping by words');
      return lexical(`The embedding model did not answer (${(err as Error).message.slice(0, 120)}): questions are grouped by the words they share`);
    }
  }

  /** The reference questions' mean vector (embedded once per process, through the cache). */
  private referenceMean(embeddings: EmbeddingsPort): Promise<Float32Array> {
    this.reference ??= this.embedCached(embeddings, REFERENCE_QUESTIONS, Infinity).then((vs) => meanVector(vs.filter((v): v is Float32Array => v !== undefined)));
    this.reference.catch(() => (this.reference = undefined));
    return this.reference;
  }

  /** Vectors of `texts` from the cache, the missing ones embedded (and stored) until the budget runs out. */
  private async embedCached(embeddings: EmbeddingsPort, texts: string[], budgetMs = this.deps.embedBudgetMs ?? 5_000): Promise<(Float32Array | undefined)[]> {
    const { db } = this.deps;
    const hashes = texts.map((t) => createHash('sha256').update(t).digest());
    const cached = await this.repo.getQuestionVectors(db, embeddings.model, hashes);
    const out: (Float32Array | undefined)[] = hashes.map((h) => {
      const buf = cached.get(h.toString('hex'));
      return buf ? fromStored(buf) : undefined;
    });
    const missing = out.flatMap((v, i) => (v ? [] : [i]));
    const deadline = Date.now() + budgetMs;
    for (let i = 0; i < missing.length && Date.now() < deadline; i += EMBED_BATCH) {
      const batch = missing.slice(i, i + EMBED_BATCH);
      const vs = await embeddings.embed({ texts: batch.map((j) => texts[j]!), kind: 'query' });
      batch.forEach((j, n) => (out[j] = vs[n]));
      await this.repo.insertQuestionVectors(db, embeddings.model, batch.map((j, n) => ({ hash: hashes[j]!, vec: encodeVector(vs[n]!).vec })));
    }
    return out;
  }
}
