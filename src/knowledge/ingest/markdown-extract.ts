import { normalizeSpace, slugify, type Block, type ParsedDocument } from './document';

/** Inline markdown to plain text: links and images keep their text, emphasis and code marks go. */
function inline(s: string): string {
  return s
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*\*|__|\*|_|~~|`)/g, '');
}

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
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (fence) {
      if (/^\s*(```|~~~)/.test(line)) {
        const text = fence.join('\n').trim();
        if (text) blocks.push({ kind: 'text', text });
        fence = undefined;
      } else fence.push(line);
      continue;
    }
    if (/^\s*(```|~~~)/.test(line)) {
      flush();
      fence = [];
      continue;
    }
    const atx = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    const next = lines[i + 1] ?? '';
    if (atx) {
      flush();
      const text = normalizeSpace(inline(atx[2]!));
      if (text) blocks.push({ kind: 'heading', level: atx[1]!.length, text, anchor: slugify(text) });
      continue;
    }
    if (line.trim() && para.length === 0 && /^\s{0,3}(=+|-+)\s*$/.test(next) && !/^\s*([-*+]|\d+[.)])\s/.test(line)) {
      const text = normalizeSpace(inline(line));
      blocks.push({ kind: 'heading', level: next.trim().startsWith('=') ? 1 : 2, text, anchor: slugify(text) });
      i++;
      continue;
    }
    if (!line.trim() || /^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      continue;
    }
    const item = /^\s*([-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      flush();
      para.push(item[2]!);
      continue;
    }
    para.push(line.replace(/^\s*>\s?/, ''));
  }
  if (fence) para.push(...fence);
  flush();
  const firstHeading = blocks.find((b) => b.kind === 'heading');
  return { title: firstHeading?.text ?? fallbackTitle, blocks };
}
