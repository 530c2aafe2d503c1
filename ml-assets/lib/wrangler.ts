/**
 * Runs wrangler the only way this project allows: no metrics, no banner, no Cloudflare API
 * lookups, so a local run never waits on the network. Set-up (seeding D1 and R2) and the
 * scripts, tests and benchmarks above it all run wrangler through this module.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { projectRoot } from './paths';

export const D1_DATABASE = 'xai-decision-lab';

const bin = (name: string) => path.join(projectRoot, 'node_modules', '.bin', name);

export function offlineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // Put the project's Node 22 first for every child, whatever started us.
    PATH: `${path.join(projectRoot, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
    WRANGLER_SEND_METRICS: 'false',
    WRANGLER_HIDE_BANNER: 'true',
    CLOUDFLARE_CF_FETCH_ENABLED: 'false',
    DO_NOT_TRACK: '1',
    // wrangler's local request tracing (every request streamed to an in-memory collector for its
    // dev explorer) is not part of the deployed Worker; it cost about 1 ms of CPU per request.
    X_LOCAL_OBSERVABILITY: 'false',
    ...extra,
  };
}

export function spawnTool(name: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  return spawn(bin(name), args, { cwd: projectRoot, env: offlineEnv(), stdio: 'inherit', ...options });
}

/** Runs a project tool to completion; rejects with its exit code. */
export function runTool(name: string, args: string[], options: SpawnOptions = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnTool(name, args, options);
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${name} ${args.join(' ')} failed (${signal ?? `exit ${code}`})`)),
    );
  });
}

/**
 * Builds the SPA participants get. Vite keeps a NODE_ENV it inherits, and vitest sets it to `test`:
 * a build started from a test suite would otherwise be React's development build (StrictMode's
 * doubled effects, its checks, 20 % more JavaScript), not the bundle that is deployed.
 */
export const buildSpa = (options: SpawnOptions = {}) =>
  runTool('vite', ['build', '--logLevel', 'warn'], { ...options, env: { ...(options.env ?? offlineEnv()), NODE_ENV: 'production' } });

/**
 * Where a wrangler data command acts: the local state (wrangler's default or `persistTo`) or
 * Cloudflare's (`remote`), for the top-level configuration or one of its environments.
 */
export type StateTarget = { remote?: boolean; persistTo?: string; env?: string | null };

export const stateFlags = (target: StateTarget): string[] => [
  ...(target.remote ? ['--remote'] : ['--local', ...(target.persistTo ? ['--persist-to', target.persistTo] : [])]),
  ...(target.env ? ['--env', target.env] : []),
];

/** Applies the migrations not yet applied (wrangler keeps the list in the database itself). */
export const applyMigrations = (target: StateTarget, options: SpawnOptions = {}, database = D1_DATABASE) =>
  // CI=true: wrangler asks no confirmation before applying.
  runTool('wrangler', ['d1', 'migrations', 'apply', database, ...stateFlags(target)], { ...options, env: offlineEnv({ CI: 'true' }) });

export const applyLocalMigrations = (persistTo?: string, options: SpawnOptions = {}) => applyMigrations({ persistTo }, options);

/** A loopback port nothing listens on right now, for a throw-away `wrangler dev`. */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * Starts `wrangler dev` on loopback; resolves once the Worker answers /api/status. The platform's
 * wrangler dev serves the SPA's build as static assets and will not start without it, so a clone
 * that has not built it yet gets it built first.
 */
export async function startLocalWorker(input: {
  port: number;
  persistTo?: string;
  vars?: Record<string, string>;
  stdio?: SpawnOptions['stdio'];
  /** Its own process group, so `killLocalWorker` can take down wrangler and workerd together. */
  detached?: boolean;
  /** Another Worker's wrangler.toml (benchmarks); the platform's by default. */
  config?: string;
  /** The V8 inspector's port for the Worker's isolate (benchmarks read its heap through it). */
  inspectorPort?: number;
  /** More environment for wrangler and the workerd it starts (benchmarks pass V8 flags). */
  env?: Record<string, string>;
  /**
   * wrangler's own output; 'warn' drops its line per request, which cost about 2 ms of CPU per
   * request across wrangler's processes (benchmarks measure the Worker, not the dev server's log).
   */
  logLevel?: 'info' | 'warn';
  /** A wrangler environment of wrangler.toml (`production` serves a deploy rehearsal's state as deployed). */
  wranglerEnv?: string;
  /** Secrets for the Worker, as a .env file (a deploy rehearsal's). */
  envFile?: string;
  /** Serve wrangler's scheduled-event test route (`/__scheduled?cron=…`). */
  testScheduled?: boolean;
}): Promise<ChildProcess> {
  if (!input.config && !existsSync(path.join(projectRoot, 'dist', 'client', 'index.html'))) await buildSpa({ stdio: 'ignore' });
  const args = ['dev', ...(input.config ? ['--config', input.config] : []), '--ip', '127.0.0.1', '--port', String(input.port), '--local', '--show-interactive-dev-session=false'];
  if (input.persistTo) args.push('--persist-to', input.persistTo);
  if (input.inspectorPort) args.push('--inspector-port', String(input.inspectorPort));
  if (input.logLevel) args.push('--log-level', input.logLevel);
  if (input.wranglerEnv) args.push('--env', input.wranglerEnv);
  if (input.envFile) args.push('--env-file', input.envFile);
  if (input.testScheduled) args.push('--test-scheduled');
  for (const [key, value] of Object.entries(input.vars ?? {})) args.push('--var', `${key}:${value}`);
  const child = spawnTool('wrangler', args, { stdio: input.stdio ?? 'inherit', detached: input.detached ?? false, env: offlineEnv(input.env) });
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${input.port}/api/status`);
      if (res.ok) return child;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGTERM');
  throw new Error('wrangler dev did not start within 120 s');
}

/** Ends a Worker started with `detached`: the whole process group (wrangler, workerd), SIGKILL by default. */
export async function killLocalWorker(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  const exited = new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Already gone.
  }
  await exited;
}

/** Rows of a query on the D1 of `target` (local or remote), as a researcher's query would read them. */
export function d1Rows<T>(target: StateTarget, sql: string, database = D1_DATABASE): T[] {
  const out = execFileSync(bin('wrangler'), ['d1', 'execute', database, ...stateFlags(target), '--json', '--command', sql], {
    cwd: projectRoot,
    // CI=true: a remote query asks no confirmation.
    env: offlineEnv({ CI: 'true' }),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(out) as { results: T[] }[])[0]!.results;
}

/** Rows of a query on a local D1 state directory. */
export const localD1Rows = <T>(persistTo: string, sql: string): T[] => d1Rows<T>({ persistTo }, sql);
