/**
 * The shell examples of a README, by section. A block is a ```sh or ```bash fence; the line before it
 * (blank lines aside) may hold a marker saying how the README test treats it:
 *
 *   <!-- readme-test: skip (why) -->    not run (npm start itself, benchmarks, configuration, a request to
 *                                       the reader's own server); the reason is required
 *   <!-- readme-test: background -->    keeps running (a receiver): started, and left running until the end
 *                                       once it has printed its first line
 *
 * Any other `readme-test` marker is an error, so a typo never silently skips a block.
 */
export interface ReadmeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  mode: 'run' | 'skip' | 'background';
}

export interface ReadmeSection {
  /** The nearest `##` or `###` heading above the blocks. */
  heading: string;
  blocks: ReadmeBlock[];
}

const MARKER = /^<!--\s*readme-test:\s*(.*?)\s*-->$/;

export function readmeSections(markdown: string): ReadmeSection[] {
  const lines = markdown.split('\n');
  const sections: ReadmeSection[] = [];
  let section: ReadmeSection | undefined;
  let fence: { line: number; shell: boolean; body: string[]; mode: ReadmeBlock['mode'] } | undefined;
  let lastText = '';
  for (const [i, line] of lines.entries()) {
    if (fence) {
      if (/^```\s*$/.test(line)) {
        if (fence.shell) {
          if (!section) throw new Error(`README.md:${fence.line}: a shell block before any heading`);
          section.blocks.push({ line: fence.line, code: fence.body.join('\n'), mode: fence.mode });
        }
        fence = undefined;
      } else fence.body.push(line);
      continue;
    }
    const open = /^```(\S*)/.exec(line);
    if (open) {
      const marker = MARKER.exec(lastText.trim());
      let mode: ReadmeBlock['mode'] = 'run';
      if (marker) {
        if (/^skip \(.+\)$/.test(marker[1]!)) mode = 'skip';
        else if (marker[1] === 'background') mode = 'background';
        else throw new Error(`README.md:${i}: unknown marker "${marker[1]}" (skip (why) | background)`);
      }
      fence = { line: i + 1, shell: open[1] === 'sh' || open[1] === 'bash', body: [], mode };
      lastText = '';
      continue;
    }
    const heading = /^#{2,3} (.+)$/.exec(line);
    if (heading) {
      section = { heading: heading[1]!.trim(), blocks: [] };
      sections.push(section);
    }
    if (line.trim() !== '') lastText = line;
  }
  if (fence) throw new Error(`README.md:${fence.line}: a block that is never closed`);
  return sections;
}
