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

/**
 * Runs one set-up step: a progress line while it runs (`▸ label…`), then one line with its time
 * (`✓ label (12.3 s)`), or `✗ label` before the error goes on.
 */
export async function step<T>(label: string, run: () => T | Promise<T>, print: (line: string) => void = console.log, now = () => performance.now()): Promise<T> {
  print(`▸ ${label}…`);
  const started = now();
  try {
    const result = await run();
    print(`✓ ${label} (${seconds(now() - started)})`);
    return result;
  } catch (err) {
    print(`✗ ${label} (${seconds(now() - started)})`);
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
