import { createHash } from 'node:crypto';

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
