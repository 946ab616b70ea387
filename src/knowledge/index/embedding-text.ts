import { createHash } from 'node:crypto';
import { splitSentences } from '../../platform/text';

/**
 * The text a passage is embedded from: its document title, its heading path and its content, one per
 * line (the model sees where the passage sits, as a reader would). Changing this changes every content
 * hash, so every vector is recomputed on the next sync.
 */
export function passageEmbeddingText(p: { title: string; heading: string | null; content: string }): string {
  return [p.title, p.heading, p.content].filter((s) => s && s.trim()).join('\n');
}

/** SHA-256 of the embedded text: the key under which a vector is stored and reused across syncs. */
export function contentHash(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Sentences of a passage embedded on their own at most (later ones have no vector: the best sentence is read among the first 16). */
const MAX_SENTENCE_VECTORS = 16;

/**
 * The texts of a passage's sentence vectors: each sentence of its content with the passage's title and
 * heading above it (so "Returns: You have 30 days." keeps its subject), one per sentence of at least three
 * characters, at most MAX_SENTENCE_VECTORS. Empty for a passage of one sentence: its passage vector is
 * that sentence's. The fused score reads the best sentence's cosine (src/knowledge/index/scoring.ts).
 */
export function sentenceEmbeddingTexts(p: { title: string; heading: string | null; content: string }): string[] {
  const sentences = splitSentences(p.content).filter((s) => s.length > 2);
  if (sentences.length < 2) return [];
  return sentences.slice(0, MAX_SENTENCE_VECTORS).map((s) => [p.title, p.heading, s].filter((t) => t && t.trim()).join('\n'));
}
