/**
 * The house drawn as rooms and arrows: `node --import tsx scripts/house-arrows.ts [root]` reads every relative
 * import of src/, activities/ and workflows/ (`import type` too) with the import-circle script's graph, and
 * prints each arrow that runs back up from a lower room to a higher one (the order is scripts/house.mjs),
 * the circles between rooms, and the allowed arrows nothing needs any more. An arrow is one file importing one
 * file of a higher room. Exits 1 on an arrow up that is not allowed, or on a circle between files.
 */
import path from 'node:path';
import { findImportCycles, importGraph } from './import-cycles';
import { HOUSE, UPWARD_ALLOWED, roomOf, upwardArrow } from './house.mjs';

export interface UpwardArrow {
  from: string;
  to: string;
  fromRoom: string;
  toRoom: string;
  /** Why it is allowed (UPWARD_ALLOWED), or undefined when it is not. */
  why?: string;
}

export interface HouseSurvey {
  arrowsUp: UpwardArrow[];
  /** Circles between rooms (each a sorted list of rooms that reach each other). */
  roomCircles: string[][];
  /** Circles between files (scripts/import-cycles.ts). */
  fileCircles: string[][];
  /** Allowed arrows that no import uses any more. */
  staleAllowances: { from: string; to: string }[];
}

/** Strongly connected sets of more than one room, by repeated reachability (a few dozen rooms). */
function roomCircles(edges: Map<string, Set<string>>): string[][] {
  const reach = (start: string) => {
    const seen = new Set<string>();
    const todo = [start];
    while (todo.length) for (const next of edges.get(todo.pop()!) ?? []) if (!seen.has(next)) (seen.add(next), todo.push(next));
    return seen;
  };
  const reaches = new Map([...edges.keys()].map((r) => [r, reach(r)]));
  const circles = new Map<string, string[]>();
  for (const [room, seen] of reaches) {
    const circle = [...seen].filter((other) => reaches.get(other)?.has(room)).sort();
    if (circle.length > 1) circles.set(circle.join(' '), circle);
  }
  return [...circles.values()];
}

export function surveyHouse(root: string): HouseSurvey {
  const rel = (f: string) => path.relative(root, f).split(path.sep).join('/');
  const arrowsUp: UpwardArrow[] = [];
  const roomEdges = new Map<string, Set<string>>();
  for (const [file, targets] of importGraph(root)) {
    for (const target of targets) {
      const from = roomOf(rel(file));
      const to = roomOf(rel(target));
      if (from && to && from.room !== to.room) roomEdges.set(from.room, (roomEdges.get(from.room) ?? new Set()).add(to.room));
      const up = upwardArrow(rel(file), rel(target));
      if (up) arrowsUp.push({ from: rel(file), to: rel(target), fromRoom: up.from, toRoom: up.to, why: up.allowed?.why });
    }
  }
  const staleAllowances = UPWARD_ALLOWED.filter((a) => !arrowsUp.some((u) => u.from === a.from && u.toRoom === a.to)).map(({ from, to }) => ({ from, to }));
  return { arrowsUp, roomCircles: roomCircles(roomEdges), fileCircles: findImportCycles(root, ['src', 'workflows', 'activities']), staleAllowances };
}

if (require.main === module) {
  const root = path.resolve(process.argv[2] ?? path.join(__dirname, '..'));
  const survey = surveyHouse(root);
  console.log(`rooms, bottom to top: ${HOUSE.map((r) => r.room).join(' < ')}`);
  for (const a of survey.arrowsUp) console.log(`up: ${a.from} (${a.fromRoom}) -> ${a.to} (${a.toRoom})${a.why ? `\n    allowed: ${a.why}` : ''}`);
  for (const c of survey.roomCircles) console.log(`room circle: ${c.join(', ')}`);
  for (const c of survey.fileCircles) console.log(`file circle: ${c.join(', ')}`);
  for (const s of survey.staleAllowances) console.log(`allowed but unused: ${s.from} -> ${s.to}`);
  const refused = survey.arrowsUp.filter((a) => !a.why);
  console.log(JSON.stringify({ arrowsUp: survey.arrowsUp.length, notAllowed: refused.length, roomCircles: survey.roomCircles.length, fileCircles: survey.fileCircles.length }));
  process.exit(refused.length || survey.fileCircles.length ? 1 : 0);
}
