import type { KnowledgeRefresh } from '../db/tables/knowledge';

const DAY_MS = 24 * 60 * 60 * 1000;
export const REFRESH_INTERVAL_MS: Record<Exclude<KnowledgeRefresh, 'manual'>, number> = { daily: DAY_MS, weekly: 7 * DAY_MS };

/**
 * Refresh runs are at fixed points of the source's cadence, phased by its creation time (the schedule's
 * interval offset), so the next sync time is computed, not stored.
 */
export function nextSyncAt(row: { refresh: KnowledgeRefresh; created_at: Date }, now = Date.now()): Date | null {
  if (row.refresh === 'manual') return null;
  const every = REFRESH_INTERVAL_MS[row.refresh];
  const offset = row.created_at.getTime() % every;
  return new Date((Math.floor((now - offset) / every) + 1) * every + offset);
}
