import { RE2JS } from 're2js';

/**
 * Regular expressions a tenant wrote (a tool's JSON Schema `pattern`, `patternProperties`) run only on
 * RE2JS, a pure-JavaScript port of RE2: matching time is linear in the text whatever the pattern, so a
 * `^(a|a)*b$` cannot stall the process the way it does on V8's backtracking engine. RE2 has no lookaround
 * and no backreferences (the constructs that need backtracking); a pattern using them does not compile
 * and is refused when the agent is saved. Nothing here ever builds a `RegExp` from tenant text.
 *
 * JSON Schema patterns are ECMA-262; RE2's syntax differs in escapes only where `\uXXXX` and `\u{…}` are
 * concerned (RE2 spells them `\x{…}`), which `toRe2Syntax` rewrites. Other differences (RE2's `\s` is
 * ASCII whitespace; `.` excludes only `\n`) are documented in docs/decisions/agents-tenant-patterns.md.
 */

/** Longest pattern accepted: compiling is linear in it. */
export const TENANT_PATTERN_MAX_LENGTH = 1000;
/**
 * Largest compiled program accepted (RE2 instructions). Matching is linear in the text but also in the
 * program: `(.*){1000}` (4,002 instructions) takes 1.6 s over 8,000 characters, `\p{L}{2,64}` is 128,
 * `^[0-9]{5}$` 9. At 250, a match over a long message stays in the tens of milliseconds.
 */
export const TENANT_PATTERN_MAX_PROGRAM = 250;

/** The compiled program's size: RE2JS keeps it on its (undocumented) compiled form; 0 when not readable. */
function programSize(re: RE2JS): number {
  const prog = (re as unknown as { re2Input?: { prog?: { numInst?: () => number } } }).re2Input?.prog;
  return typeof prog?.numInst === 'function' ? prog.numInst() : 0;
}

const HEX4 = /^[0-9A-Fa-f]{4}$/;

/** Rewrites ECMAScript `\uXXXX` (surrogate pairs joined) and `\u{X…}` escapes into RE2's `\x{…}`. */
export function toRe2Syntax(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = pattern[i + 1];
    if (next === 'u' && HEX4.test(pattern.slice(i + 2, i + 6))) {
      let code = parseInt(pattern.slice(i + 2, i + 6), 16);
      i += 5;
      const low = pattern.slice(i + 1, i + 7);
      if (code >= 0xd800 && code <= 0xdbff && /^\\u[dD][c-fC-F][0-9A-Fa-f]{2}$/.test(low)) {
        code = 0x10000 + ((code - 0xd800) << 10) + (parseInt(low.slice(2), 16) - 0xdc00);
        i += 6;
      }
      out += `\\x{${code.toString(16)}}`;
      continue;
    }
    const braced = next === 'u' ? /^\{([0-9A-Fa-f]{1,6})\}/.exec(pattern.slice(i + 2)) : null;
    if (braced) {
      out += `\\x{${braced[1]}}`;
      i += 1 + braced[0].length;
      continue;
    }
    out += c + (next ?? '');
    i += 1;
  }
  return out;
}

export interface TenantPatternOptions {
  ignoreCase?: boolean;
}

const CACHE_LIMIT = 500;
const cache = new Map<string, RE2JS | Error>();

function compiled(pattern: string, options: TenantPatternOptions = {}): RE2JS | Error {
  const key = `${options.ignoreCase ? 'i' : ''}/${pattern}`;
  let hit = cache.get(key);
  if (hit === undefined) {
    if (pattern.length > TENANT_PATTERN_MAX_LENGTH) {
      hit = new Error(`a pattern may be at most ${TENANT_PATTERN_MAX_LENGTH} characters`);
    } else {
      try {
        hit = RE2JS.compile(toRe2Syntax(pattern), options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
        const size = programSize(hit);
        if (size > TENANT_PATTERN_MAX_PROGRAM) hit = new Error(`the pattern compiles to ${size} steps, at most ${TENANT_PATTERN_MAX_PROGRAM} (fewer or smaller counted repeats)`);
      } catch (e) {
        hit = new Error(e instanceof Error ? e.message : String(e));
      }
    }
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, hit);
  }
  return hit;
}

/** Null when the pattern runs on the linear engine; else why it is refused (lookaround, backreference, size…). */
export function tenantPatternProblem(pattern: string): string | null {
  const re = compiled(pattern);
  return re instanceof Error ? re.message.replace(/^error parsing regexp: /, '') : null;
}

/** Whether `text` contains a match (JSON Schema `pattern` semantics: not anchored unless the pattern is); false for a refused pattern. */
export function tenantPatternMatches(pattern: string, text: string, options?: TenantPatternOptions): boolean {
  const re = compiled(pattern, options);
  return !(re instanceof Error) && re.matcher(text).find();
}

/** Every non-overlapping match, left to right, with UTF-16 offsets (as String.prototype.matchAll gives). */
export function* tenantPatternMatchAll(pattern: string, text: string, options?: TenantPatternOptions): Generator<{ index: number; text: string }> {
  const re = compiled(pattern, options);
  if (re instanceof Error) return;
  const m = re.matcher(text);
  while (m.find()) yield { index: m.start(), text: m.group() ?? '' };
}

/** The engine Ajv runs `pattern` and `patternProperties` with (its `code.regExp` option); throws for a refused pattern. */
export const tenantPatternEngine = Object.assign(
  (pattern: string) => {
    const re = compiled(pattern);
    if (re instanceof Error) throw new Error(`pattern ${JSON.stringify(pattern.slice(0, 80))} is not supported: ${re.message}`);
    // Ajv keys its compiled-pattern scope by `toString()`: it must differ per pattern.
    return { test: (s: string) => re.matcher(s).find(), toString: () => `re2:${pattern}` };
  },
  { code: 'tenantPatternEngine' },
);
