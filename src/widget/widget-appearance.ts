import { UNPROCESSABLE, z } from '../domain/api-schema';

/** Longest greeting the widget shows when it opens. */
export const MAX_GREETING_LENGTH = 500;
/** Longest proactive message (a bubble beside the launcher, not a chat turn). */
export const MAX_PROACTIVE_MESSAGE_LENGTH = 300;
/** Longest wait before the proactive message shows. */
export const MAX_PROACTIVE_DELAY_SECONDS = 600;
/** Most path prefixes the proactive message is limited to. */
export const MAX_PROACTIVE_PATHS = 20;
const MAX_PATH_LENGTH = 200;

export const THEME_COLOR = /^#[0-9a-fA-F]{6}$/;
/** A path prefix as `location.pathname` starts: a slash, then no whitespace, query or fragment. */
const PATH_PREFIX = /^\/[^\s?#]*$/;

export const WIDGET_POSITIONS = ['bottom-right', 'bottom-left'] as const;
export const VISITOR_TOKEN_PERSISTENCE = ['local', 'session', 'memory'] as const;

export const ProactiveSchema = z
  .strictObject({
    message: z.string().trim().min(1).max(MAX_PROACTIVE_MESSAGE_LENGTH).describe(`shown beside the launcher, at most ${MAX_PROACTIVE_MESSAGE_LENGTH} characters; it becomes a chat turn only when the visitor answers`),
    delay_seconds: z.number().int().min(0).max(MAX_PROACTIVE_DELAY_SECONDS).describe(`seconds on the page before it shows (0 to ${MAX_PROACTIVE_DELAY_SECONDS})`),
    paths: z
      .array(z.string().max(MAX_PATH_LENGTH).regex(PATH_PREFIX, "a path prefix starts with '/' and has no spaces, query or fragment, e.g. /pricing"))
      .max(MAX_PROACTIVE_PATHS)
      .default([])
      .describe(`path prefixes it shows on (e.g. /pricing), at most ${MAX_PROACTIVE_PATHS}; empty: every page`),
  })
  .refine((p) => new Set(p.paths).size === p.paths.length, { ...UNPROCESSABLE('a path prefix is listed twice'), path: ['paths'] });
export type Proactive = z.output<typeof ProactiveSchema>;

/** What the widget looks like and does; every field has a default, so an agent that never set them has a widget. */
export interface WidgetAppearance {
  theme_color: string;
  position: (typeof WIDGET_POSITIONS)[number];
  greeting: string | null;
  proactive: Proactive | null;
  persistence: (typeof VISITOR_TOKEN_PERSISTENCE)[number];
}

export const DEFAULT_APPEARANCE: WidgetAppearance = { theme_color: '#2563eb', position: 'bottom-right', greeting: null, proactive: null, persistence: 'local' };

/** The fields of a settings update (each optional: what is left out keeps its value). */
export const AppearanceUpdateSchema = z.strictObject({
  theme_color: z.string().regex(THEME_COLOR, "a colour as '#RRGGBB'").describe("the launcher's and header's colour, '#RRGGBB'").optional(),
  position: z.enum(WIDGET_POSITIONS).describe('which bottom corner the launcher sits in').optional(),
  greeting: z.string().trim().min(1).max(MAX_GREETING_LENGTH).nullable().describe(`the first line the open widget shows (not stored as a turn), at most ${MAX_GREETING_LENGTH} characters; null: none`).optional(),
  proactive: ProactiveSchema.nullable().describe('a message shown after some seconds on chosen pages; null: none').optional(),
  persistence: z.enum(VISITOR_TOKEN_PERSISTENCE).describe("where the widget keeps the visitor token: local (localStorage, the conversation survives closing the browser), session (sessionStorage: this tab), memory (this page only)").optional(),
});
export type AppearanceUpdate = z.output<typeof AppearanceUpdateSchema>;

/**
 * The stored appearance completed with the defaults (a field stored by an older version that no longer
 * validates falls back to its default rather than reaching the widget).
 */
export function appearanceOf(stored: Record<string, unknown> | null | undefined): WidgetAppearance {
  const parsed = AppearanceUpdateSchema.safeParse(stored ?? {});
  const s = parsed.success ? parsed.data : {};
  return {
    theme_color: (s.theme_color ?? DEFAULT_APPEARANCE.theme_color).toLowerCase(),
    position: s.position ?? DEFAULT_APPEARANCE.position,
    greeting: s.greeting === undefined ? DEFAULT_APPEARANCE.greeting : s.greeting,
    proactive: s.proactive === undefined ? DEFAULT_APPEARANCE.proactive : s.proactive,
    persistence: s.persistence ?? DEFAULT_APPEARANCE.persistence,
  };
}

/** The stored appearance after an update: the given fields replace theirs. */
export function mergeAppearance(current: WidgetAppearance, update: AppearanceUpdate): WidgetAppearance {
  const next = { ...current };
  for (const [k, v] of Object.entries(update) as Array<[keyof WidgetAppearance, never]>) if (v !== undefined) next[k] = v;
  next.theme_color = next.theme_color.toLowerCase();
  return next;
}
