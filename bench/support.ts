import os from 'node:os';

/** Facts about the machine a benchmark ran on, printed with its figures. */
export function machineInfo() {
  return {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()}-${os.arch()}`,
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function runPool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
