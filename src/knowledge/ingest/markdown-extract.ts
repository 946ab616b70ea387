import { normalizeSpace, slugify, type Block, type ParsedDocument } from './document';

/*
 * Every scan here is linear in the input: no regular expression with nested or adjacent quantifiers runs
 * on caller text (an upload is hostile input; a backtracking pattern on one line of a few thousand spaces
 * held the event loop for minutes). Searches for a closing character go through `forwardFinder`, whose
 * positions only move forward, so a run of `<` or `[` costs one pass, not one pass per opener.
 */

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\f' || c === '\v';

/**
 * `find(from)` is `s.indexOf(ch, from)` for non-decreasing `from`, in amortised O(1): the last hit is
 * reused until `from` passes it, and once nothing is left nothing is searched again.
 */
function forwardFinder(s: string, ch: string): (from: number) => number {
  let hit = -2;
  return (from) => {
    if (hit !== -1 && hit < from) hit = s.indexOf(ch, from);
    return hit;
  };
}

/** `![alt](url)` → alt and `[text](url)` → text; anything else is copied as it is. */
function stripLinks(s: string): string {
  const nextBracket = forwardFinder(s, ']');
  const nextParen = forwardFinder(s, ')');
  let out = '';
  let i = 0;
  while (i < s.length) {
    const image = s[i] === '!' && s[i + 1] === '[';
    const open = image ? i + 1 : s[i] === '[' ? i : -1;
    if (open >= 0) {
      const close = nextBracket(open + 1);
      if (close >= 0 && (image || close > open + 1) && s[close + 1] === '(') {
        const paren = nextParen(close + 2);
        if (paren >= 0) {
          out += s.slice(open + 1, close);
          i = paren + 1;
          continue;
        }
      }
    }
    out += s[i];
    i++;
  }
  return out;
}

/** Drops `<…>` spans (inline HTML) the way `/<[^>]+>/g` would, in one pass. */
export function stripTags(s: string): string {
  const nextGt = forwardFinder(s, '>');
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s[i] === '<') {
      const gt = nextGt(i + 1);
      if (gt > i + 1) {
        i = gt + 1;
        continue;
      }
    }
    out += s[i];
    i++;
  }
  return out;
}

/** Inline markdown to plain text: links and images keep their text, HTML tags, emphasis and code marks go. */
function inline(s: string): string {
  return stripTags(stripLinks(s)).replace(/[*_~`]/g, '');
}

/** Index of the first character after up to `max` leading spaces, or -1 when more follow. */
function indentEnd(line: string, max = 3): number {
  let i = 0;
  while (i < line.length && line[i] === ' ') i++;
  return i <= max ? i : -1;
}

/** An ATX heading (`## Title ##`) as level and raw text, per CommonMark; undefined for any other line. */
export function atxHeading(line: string): { level: number; text: string } | undefined {
  const start = indentEnd(line);
  if (start < 0) return undefined;
  let i = start;
  while (i < line.length && line[i] === '#') i++;
  const level = i - start;
  if (level < 1 || level > 6 || (i < line.length && !isSpace(line[i]))) return undefined;
  let end = line.length;
  while (end > i && isSpace(line[end - 1])) end--;
  // An optional closing run of `#`, preceded by a space (or being the whole content).
  let hashes = end;
  while (hashes > i && line[hashes - 1] === '#') hashes--;
  if (hashes < end && (hashes === i || isSpace(line[hashes - 1]))) end = hashes;
  return { level, text: line.slice(i, end).trim() };
}

/** A setext underline (`===` or `---`, up to three spaces of indent, trailing blanks allowed). */
function setextLevel(line: string): 1 | 2 | undefined {
  const start = indentEnd(line);
  if (start < 0) return undefined;
  const c = line[start];
  if (c !== '=' && c !== '-') return undefined;
  let i = start;
  while (line[i] === c) i++;
  while (isSpace(line[i])) i++;
  return i === line.length ? (c === '=' ? 1 : 2) : undefined;
}

/** `***`, `- - -`, `___`: three or more of one of `-*_`, spaces between, nothing else. */
function isThematicBreak(line: string): boolean {
  const start = indentEnd(line);
  if (start < 0) return false;
  const c = line[start];
  if (c !== '-' && c !== '*' && c !== '_') return false;
  let count = 0;
  for (let i = start; i < line.length; i++) {
    if (line[i] === c) count++;
    else if (!isSpace(line[i])) return false;
  }
  return count >= 3;
}

/** The text of a list item (`- x`, `* x`, `+ x`, `1. x`, `2) x`), or undefined. */
function listItem(line: string): string | undefined {
  let i = 0;
  while (isSpace(line[i])) i++;
  const c = line[i];
  if (c === '-' || c === '*' || c === '+') i++;
  else {
    const digits = i;
    while (line[i] !== undefined && line[i]! >= '0' && line[i]! <= '9') i++;
    if (i === digits || (line[i] !== '.' && line[i] !== ')')) return undefined;
    i++;
  }
  if (!isSpace(line[i])) return undefined;
  return line.slice(i).trim();
}

const isFence = (line: string) => {
  const t = line.trimStart();
  return t.startsWith('```') || t.startsWith('~~~');
};

const unquote = (line: string) => {
  const t = line.trimStart();
  if (!t.startsWith('>')) return line;
  return isSpace(t[1]) ? t.slice(2) : t.slice(1);
};

/**
 * Headings (ATX `#` and setext), paragraphs, list items, block quotes and fenced code of a markdown
 * document, as blocks. Heading anchors are GitHub-style slugs.
 */
export function extractMarkdown(source: string, fallbackTitle: string): ParsedDocument {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let para: string[] = [];
  let fence: string[] | undefined;
  const flush = () => {
    const text = normalizeSpace(inline(para.join(' ')));
    if (text) blocks.push({ kind: 'text', text });
    para = [];
  };
  const heading = (level: number, raw: string) => {
    const text = normalizeSpace(inline(raw));
    if (text) blocks.push({ kind: 'heading', level, text, anchor: slugify(text) });
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence) {
      if (isFence(line)) {
        const text = fence.join('\n').trim();
        if (text) blocks.push({ kind: 'text', text });
        fence = undefined;
      } else fence.push(line);
      continue;
    }
    if (isFence(line)) {
      flush();
      fence = [];
      continue;
    }
    const atx = atxHeading(line);
    if (atx) {
      flush();
      heading(atx.level, atx.text);
      continue;
    }
    const underline = setextLevel(lines[i + 1] ?? '');
    if (line.trim() && para.length === 0 && underline && listItem(line) === undefined) {
      heading(underline, line);
      i++;
      continue;
    }
    if (!line.trim() || isThematicBreak(line)) {
      flush();
      continue;
    }
    const item = listItem(line);
    if (item !== undefined) {
      flush();
      para.push(item);
      continue;
    }
    para.push(unquote(line));
  }
  if (fence) para.push(...fence);
  flush();
  const firstHeading = blocks.find((b) => b.kind === 'heading');
  return { title: firstHeading?.text ?? fallbackTitle, blocks };
}
