/**
 * The house: the project's areas as rooms, stacked bottom to top. A file may import a file of its own room or
 * of a room below; an import from a lower room into a higher one is an arrow running back up. This list is
 * the one place the order is written: eslint.config.mjs (rule `house/no-upward-import`) and
 * scripts/house-arrows.ts (the count) both read it, and the README's Layout section shows it.
 * Plain JavaScript so that ESLint's config can import it as it is.
 */
import path from 'node:path';

/** The project root (this file is in scripts/). */
export const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * Rooms from the bottom floor to the top. Each room is one or more paths (a folder, or a file without `.ts`);
 * a file belongs to the room with the longest path that holds it (workflows/shared before workflows).
 */
export const HOUSE = [
  { room: 'config', paths: ['src/config'] },
  { room: 'domain', paths: ['src/domain'] },
  { room: 'observability', paths: ['src/observability'] },
  { room: 'platform', paths: ['src/platform'] },
  { room: 'privacy', paths: ['src/privacy'] },
  { room: 'db', paths: ['src/db'] },
  { room: 'http', paths: ['src/http'] },
  { room: 'contracts', paths: ['workflows/shared'] },
  { room: 'temporal', paths: ['src/temporal'] },
  { room: 'accounts', paths: ['src/accounts'] },
  { room: 'webhooks', paths: ['src/webhooks'] },
  { room: 'links', paths: ['src/links'] },
  { room: 'knowledge', paths: ['src/knowledge'] },
  { room: 'agents', paths: ['src/agents'] },
  { room: 'widget', paths: ['src/widget'] },
  { room: 'numbers', paths: ['src/numbers'] },
  { room: 'sms', paths: ['src/sms'] },
  { room: 'verifications', paths: ['src/verifications'] },
  { room: 'runs', paths: ['src/runs'] },
  { room: 'conversations', paths: ['src/conversations'] },
  { room: 'evaluations', paths: ['src/evaluations'] },
  { room: 'channels', paths: ['src/channels'] },
  { room: 'analytics', paths: ['src/analytics'] },
  // The example's content and its demo traffic generator: written through the areas' repos, read by app and cli.
  { room: 'demo', paths: ['src/demo'] },
  { room: 'test-helpers', paths: ['src/test-helpers'] },
  { room: 'console', paths: ['src/console'] },
  { room: 'activities', paths: ['activities'] },
  { room: 'workflows', paths: ['workflows'] },
  { room: 'app', paths: ['src/app'] },
  { room: 'cli', paths: ['src/cli'] },
  { room: 'entry points', paths: ['src/main', 'src/main.api', 'src/main.worker', 'src/entry-point'] },
];

/**
 * The arrows allowed to run back up, each with why: every import of the file `from` into the room `to`. Keep
 * this list short (at most 5 arrows counted from it); an entry nothing uses any more is reported by the count.
 */
export const UPWARD_ALLOWED = [];

const withoutExtension = (p) => p.replace(/\\/g, '/').replace(/(\.d)?\.(ts|mts|js|mjs)$/, '');

const ROOMS = HOUSE.flatMap((r, floor) => r.paths.map((p) => ({ room: r.room, floor, path: p }))).sort((a, b) => b.path.length - a.path.length);

/** The room of a path relative to ROOT (a file, or an import resolved without its extension); undefined outside the house. */
export function roomOf(relativePath) {
  const p = withoutExtension(relativePath);
  const hit = ROOMS.find((r) => p === r.path || p.startsWith(`${r.path}/`));
  return hit && { room: hit.room, floor: hit.floor };
}

/** Whether a file's import of `target` (both relative to ROOT) runs back up, and if so whether it is allowed. */
export function upwardArrow(fromFile, target) {
  const from = roomOf(fromFile);
  const to = roomOf(target);
  if (!from || !to || to.floor <= from.floor) return undefined;
  const allowed = UPWARD_ALLOWED.find((a) => withoutExtension(a.from) === withoutExtension(fromFile) && a.to === to.room);
  return { from: from.room, to: to.room, allowed };
}
