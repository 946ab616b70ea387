/**
 * Import circles among the project's TypeScript files: `node --import tsx scripts/import-cycles.ts [dir…]`
 * prints each circle that passes through a file under one of the dirs (default: src workflows activities)
 * and exits 1 when there is one. Every relative import counts, `import type` too (a circle of types is
 * still two modules that cannot be read apart). Specifiers are read with TypeScript's own pre-processor.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SOURCE_ROOTS = ['src', 'workflows', 'activities'];

function listTs(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : listTs(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

function resolveRelative(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, path.join(base, 'index.ts'), base].find((p) => p.endsWith('.ts') && fs.existsSync(p));
}

/** The project's import graph: each file's relative imports that resolve to a .ts file. */
export function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of SOURCE_ROOTS.flatMap((r) => listTs(path.join(root, r)))) {
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((s) => s.startsWith('.'))
      .map((s) => resolveRelative(file, s))
      .filter((p): p is string => p !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components with more than one file (or a file importing itself), by Tarjan. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** The circles (as sorted lists of paths relative to root) that hold a file under one of `dirs`. */
export function findImportCycles(root: string, dirs: string[]): string[][] {
  const within = dirs.map((d) => path.resolve(root, d) + path.sep);
  return circles(importGraph(root))
    .filter((scc) => scc.some((f) => within.some((d) => f.startsWith(d))))
    .map((scc) => scc.map((f) => path.relative(root, f)));
}

if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  const dirs = process.argv.slice(2);
  const found = findImportCycles(root, dirs.length ? dirs : SOURCE_ROOTS);
  for (const scc of found) console.log(`circle of ${scc.length}:\n  ${scc.join('\n  ')}`);
  console.log(`${found.length} import circle(s) in ${dirs.length ? dirs.join(' ') : SOURCE_ROOTS.join(' ')}`);
  process.exit(found.length ? 1 : 0);
}
