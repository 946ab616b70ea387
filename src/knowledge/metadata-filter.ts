/** Equality (`"en"`), or `{in: [...]}`, or `{eq: "en"}`, per metadata key; keys combine with AND. */
export type MetadataFilterValue = string | number | boolean | { in: (string | number | boolean)[] } | { eq: string | number | boolean };
export type MetadataFilter = Record<string, MetadataFilterValue>;

/** The filter as allowed string values per key (metadata values are stored as strings). */
export function normalizeFilter(filter: MetadataFilter | undefined): Record<string, string[]> | undefined {
  if (!filter || Object.keys(filter).length === 0) return undefined;
  return Object.fromEntries(
    Object.entries(filter).map(([key, cond]) => [
      key,
      typeof cond === 'object' && cond !== null && 'in' in cond ? cond.in.map(String) : typeof cond === 'object' && cond !== null ? [String(cond.eq)] : [String(cond)],
    ]),
  );
}

/** Whether `metadata` passes the normalised filter `allowed` (every key present with one of its allowed values; none: all pass). */
export function matchesAllowed(metadata: Record<string, string>, allowed: Record<string, string[]> | undefined): boolean {
  if (!allowed) return true;
  return Object.entries(allowed).every(([key, values]) => metadata[key] !== undefined && values.includes(metadata[key]));
}

/** Whether `metadata` passes `filter` (matchesAllowed on the normalised filter). */
export function matchesFilter(metadata: Record<string, string>, filter: MetadataFilter | undefined): boolean {
  return matchesAllowed(metadata, normalizeFilter(filter));
}
