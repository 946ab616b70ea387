import { sql, type RawBuilder } from 'kysely';

/**
 * Text search configurations (stemmer + stop words) by the language of a passage's locale: German,
 * French, Spanish… text is never run through the English stemmer. PostgreSQL 15 and PGlite ship these.
 */
export const ANALYZERS: Record<string, string> = {
  en: 'english', de: 'german', fr: 'french', es: 'spanish', it: 'italian', pt: 'portuguese', nl: 'dutch',
  sv: 'swedish', da: 'danish', fi: 'finnish', no: 'norwegian', nb: 'norwegian', nn: 'norwegian',
  ru: 'russian', hu: 'hungarian', ro: 'romanian', tr: 'turkish',
};

/** Passages without a locale (and api-source results) keep the index's historical analyzer. */
export const DEFAULT_ANALYZER = 'english';

/** The analyzer of a locale (`de`, `de-AT`, `pt_BR`): its language's, `simple` (no stemming) when unknown. */
export function analyzerFor(locale: string | undefined | null): string {
  if (!locale?.trim()) return DEFAULT_ANALYZER;
  return ANALYZERS[locale.trim().toLowerCase().replace('_', '-').split('-')[0]!] ?? 'simple';
}

/**
 * SQL twin of `analyzerFor` over a passage's metadata (jsonb): its `locale` (or `language`) key picks the
 * analyzer. Index and query use this one expression, so a passage is always read as it was written.
 */
export function analyzerSql(metadata: RawBuilder<unknown>): RawBuilder<string> {
  const locale = sql`nullif(btrim(coalesce(${metadata} ->> 'locale', ${metadata} ->> 'language')), '')`;
  return sql<string>`case when ${locale} is null then ${DEFAULT_ANALYZER}::text
    else coalesce(${JSON.stringify(ANALYZERS)}::jsonb ->> split_part(replace(lower(${locale}), '_', '-'), '-', 1), 'simple') end`;
}
