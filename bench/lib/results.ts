/** Where benchmarks leave their figures: bench/results/<name>.json, with the machine they came from. */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../ml-assets/lib/paths';

/** This machine in one line; a figure from another machine is never the other side of a ratio. */
export const machineLine = () => `${process.platform} ${process.arch} ${os.cpus()[0]?.model ?? ''} × ${os.cpus().length}, node ${process.version}`;

/** The q-quantile of ascending values (the one at ⌊q·n⌋); null when there are none. */
export const quantile = (sorted: readonly number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : null);

/** A figure as a result file records it; null stays null. */
export const round = (v: number | null, digits = 1) => (v === null ? null : Number(v.toFixed(digits)));

/** How many calls and their p50/p95/p99 in ms, as result files record latencies. */
export function latencySummary(ms: readonly number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  return { calls: sorted.length, p50_ms: round(quantile(sorted, 0.5)), p95_ms: round(quantile(sorted, 0.95)), p99_ms: round(quantile(sorted, 0.99)) };
}

/** Writes bench/results/`name`.json and says where. */
export function writeBenchResult(name: string, report: unknown): void {
  const out = path.join(projectRoot, 'bench', 'results', `${name}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${path.relative(projectRoot, out)}`);
}
