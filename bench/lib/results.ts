/** Where benchmarks leave their figures: bench/results/<name>.json, with the machine they came from. */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from '../../scripts/lib/wrangler';

/** This machine in one line; a figure from another machine is never the other side of a ratio. */
export const machineLine = () => `${process.platform} ${process.arch} ${os.cpus()[0]?.model ?? ''} × ${os.cpus().length}, node ${process.version}`;

/** Writes bench/results/`name`.json and says where. */
export function writeBenchResult(name: string, report: unknown): void {
  const out = path.join(projectRoot, 'bench', 'results', `${name}.json`);
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${path.relative(projectRoot, out)}`);
}
