/**
 * What `npm start` prints: one line per set-up step with its time, the tools' own output (vite's
 * build, wrangler's migration tables) in a log file unless `--verbose`, and a closing box with
 * the URLs and where the admin password is.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { SpawnOptions } from 'node:child_process';

/** Where the tools' output goes: the terminal (`--verbose`) or the log file, opened for appending. */
export function toolOutput(verbose: boolean, logFile: string): { stdio: SpawnOptions['stdio']; note: string | null; close: () => void } {
  if (verbose) return { stdio: 'inherit', note: null, close: () => undefined };
  mkdirSync(path.dirname(logFile), { recursive: true });
  const fd = openSync(logFile, 'a');
  writeSync(fd, `\n--- npm start ${new Date().toISOString()} ---\n`);
  return { stdio: ['ignore', fd, fd], note: logFile, close: () => closeSync(fd) };
}

/** Seconds, as a step line shows them. */
export const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

/** Where a step's lines go: a terminal (`live`) gets a progress line that its result line replaces; a log gets the result line alone. */
export type StepOutput = { live: boolean; write: (text: string) => void };
const stdoutOutput = (): StepOutput => ({ live: Boolean(process.stdout.isTTY), write: (text) => void process.stdout.write(text) });

/**
 * Runs one set-up step and prints one line for it, with its time (`✓ label (12.3 s)`, or
 * `✗ label` before the error goes on). In a terminal a progress line (`▸ label…`) shows while it
 * runs and the result line takes its place, so each step is one line there as in a log. Lines the
 * step prints itself go through `log` (given to `run`), above the result.
 */
export async function step<T>(label: string, run: (log: (line: string) => void) => T | Promise<T>, out: StepOutput = stdoutOutput(), now = () => performance.now()): Promise<T> {
  let progress = out.live;
  if (progress) out.write(`▸ ${label}…`);
  const log = (line: string) => {
    if (progress) out.write('\n');
    progress = false;
    out.write(`${line}\n`);
  };
  const started = now();
  const done = (mark: string) => out.write(`${progress ? '\r\x1b[2K' : ''}${mark} ${label} (${seconds(now() - started)})\n`);
  try {
    const result = await run(log);
    done('✓');
    return result;
  } catch (err) {
    done('✗');
    throw err;
  }
}

/** The closing box: where the study and the dashboard are, and the admin password or where to read it again. */
export function closingBox(input: { url: string; devVars: string; password: string | null; logFile: string | null }): string {
  const lines = [
    'XAI Decision Lab is running',
    '',
    `Study:      ${input.url}/`,
    `Dashboard:  ${input.url}/admin`,
    `Status:     ${input.url}/status`,
    '',
    ...(input.password ? [`Admin password (new): ${input.password}`] : []),
    `Admin password is ADMIN_PASSWORD in ${input.devVars}`,
    `  see it again with: grep ADMIN_PASSWORD ${input.devVars}`,
    ...(input.logFile ? [`Set-up details: ${input.logFile} (npm start -- --verbose prints them)`] : []),
    'Stop with Ctrl+C.',
  ];
  const width = Math.max(...lines.map((l) => l.length));
  const rule = `+${'-'.repeat(width + 2)}+`;
  return [rule, ...lines.map((l) => `| ${l.padEnd(width)} |`), rule].join('\n');
}
