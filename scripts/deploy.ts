/**
 * `npm run deploy [-- --env staging] [-- --local [--persist-to DIR]]`: puts the study online in
 * one command, and is safe to run again after any change.
 *
 *   1. datasets, case pools and AI models prepared (as `npm start` does; skipped when up to date);
 *   2. the environment's D1 database and both R2 buckets found or created (names from
 *      wrangler.toml; a new database's ID is written back into it);
 *   3. migrations applied to the remote D1;
 *   4. cases and AI models seeded by the same code `npm start` uses (existing cases are never
 *      changed, a retrained or uploaded model is never replaced);
 *   5. the admin password asked for (or drawn) when the Worker has none yet;
 *   6. the SPA built, the Worker bundled and checked against the Free plan's size limit, deployed;
 *      the URL printed.
 *
 * `--local` is the rehearsal: every step against a fresh local state directory instead of
 * Cloudflare, with no network; the deploy itself becomes wrangler's dry run. `wrangler dev --env
 * <env> --persist-to <dir>` then serves exactly what the deployed copy would hold.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { writeDatasetRegistry } from '../ml-assets/lib/dataset-registry';
import { prepareAll } from '../ml-assets/lib/prepare';
import { seedState } from '../ml-assets/lib/seed';
import { isPlaceholderId, readDeployTarget, writeDatabaseId, type DeployTarget } from '../ml-assets/lib/wrangler-config';
import { bundleWorker, FREE_PLAN_WORKER_LIMIT_BYTES } from './lib/worker-bundle';
import { applyMigrations, buildSpa, offlineEnv } from '../ml-assets/lib/wrangler';
import { projectRoot } from '../ml-assets/lib/paths';

const USAGE = `usage: npm run deploy [-- --env <name>] [-- --local [--persist-to <dir>]]
  --env <name>        the wrangler.toml environment to deploy (default: production)
  --local             rehearse every step against a fresh local state, with no network
  --persist-to <dir>  where the rehearsal keeps its state (default: .wrangler/rehearsal/<env>, emptied first)`;

/** The command line, or a one-line refusal and the usage (never a stack trace) for what it does not know. */
function options() {
  try {
    return parseArgs({
      options: {
        env: { type: 'string', default: 'production' },
        local: { type: 'boolean', default: false },
        'persist-to': { type: 'string' },
      },
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // wrangler's own hints (such as `--temporary`, for its `deploy` without credentials) are options of wrangler, not of this script.
    const hint = /--temporary/.test(message)
      ? '\n  (--temporary is an option of wrangler\'s own `wrangler deploy`, which this script runs for you; to try the study without a Cloudflare account, use --local)'
      : '';
    console.error(`npm run deploy: ${message.split('\n')[0]}${hint}\n${USAGE}`);
    process.exit(2);
  }
}
const { values } = options();

const step = (text: string) => console.log(`\n▸ ${text}`);

/** The port the rehearsal's serve command names (wrangler's own default, written out so the URL can be printed). */
const REHEARSAL_PORT = 8787;

/** wrangler's answer to a command, as text (its own progress lines go to stderr). */
function wranglerOutput(args: string[]): string {
  return execFileSync(path.join(projectRoot, 'node_modules', '.bin', 'wrangler'), args, {
    cwd: projectRoot,
    env: offlineEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
}

function ensureDatabase(target: DeployTarget): void {
  const listed = () => (JSON.parse(wranglerOutput(['d1', 'list', '--json'])) as { name: string; uuid: string }[]).find((d) => d.name === target.database.name);
  let found = listed();
  if (!found) {
    console.log(`  creating D1 database ${target.database.name}`);
    wranglerOutput(['d1', 'create', target.database.name, '--update-config=false']);
    found = listed();
    if (!found) throw new Error(`D1 database ${target.database.name} was created but is not listed`);
  } else {
    console.log(`  D1 database ${target.database.name} exists (${found.uuid})`);
  }
  if (target.env && writeDatabaseId(target.env, target.database.name, found.uuid)) {
    console.log(`  wrote its ID into wrangler.toml [env.${target.env}]: commit that change`);
  }
}

function ensureBuckets(target: DeployTarget): void {
  const existing = new Set([...wranglerOutput(['r2', 'bucket', 'list']).matchAll(/^name:\s+(\S+)/gm)].map((m) => m[1]));
  for (const bucket of [target.buckets.models, target.buckets.exports]) {
    if (existing.has(bucket)) {
      console.log(`  R2 bucket ${bucket} exists`);
    } else {
      console.log(`  creating R2 bucket ${bucket}`);
      wranglerOutput(['r2', 'bucket', 'create', bucket]);
    }
  }
}

/** Whether the deployed Worker already has its admin password (a Worker not yet deployed has none). */
function hasRemoteSecret(target: DeployTarget): boolean {
  try {
    const secrets = JSON.parse(wranglerOutput(['secret', 'list', '--env', target.env!, '--format', 'json'])) as { name: string }[];
    return secrets.some((s) => s.name === 'ADMIN_PASSWORD');
  } catch {
    return false;
  }
}

/** The admin password for a Worker that has none: from XDL_ADMIN_PASSWORD, asked for, or drawn. */
async function newAdminPassword(): Promise<{ password: string; drawn: boolean }> {
  const given = process.env.XDL_ADMIN_PASSWORD;
  if (given) return { password: given, drawn: false };
  if (process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    const answer = (await rl.question('  Admin password for the dashboard (empty: draw one): ')).trim();
    rl.close();
    if (answer.length >= 12) return { password: answer, drawn: false };
    if (answer) console.log('  That is shorter than 12 characters; drawing one instead.');
  }
  return { password: randomBytes(18).toString('base64url'), drawn: true };
}

async function main(): Promise<void> {
  const env = values.env;
  const target = readDeployTarget(env);
  if (target.environment !== 'production') throw new Error(`[env.${env}] must set ENVIRONMENT = "production" (it sets ${target.environment ?? 'nothing'})`);
  const local = values.local;
  const persistTo = path.resolve(values['persist-to'] ?? path.join(projectRoot, '.wrangler', 'rehearsal', env));
  const state = local ? { persistTo, env } : { remote: true, env };
  console.log(local ? `Rehearsing the deploy of ${target.workerName} into ${persistTo} (no network)` : `Deploying ${target.workerName} (wrangler environment ${env})`);

  step('Preparing datasets, case pools and AI models');
  prepareAll({ log: (line) => console.log(`  ${line}`), definitions: writeDatasetRegistry() });

  step('Database and buckets');
  if (local) {
    // A fresh state directory: the rehearsal starts where a first deploy starts, from nothing.
    // Whatever was collected while serving the previous rehearsal goes with it: say so first.
    if (existsSync(persistTo) && readdirSync(persistTo).length > 0) {
      console.log(`  The rehearsal starts from an empty state: deleting ${persistTo}, with every participant, answer and export`);
      console.log('  collected while serving the previous rehearsal. To keep one, copy that directory first or rehearse into another with --persist-to <dir>.');
    }
    rmSync(persistTo, { recursive: true, force: true });
    mkdirSync(persistTo, { recursive: true });
    console.log(`  local state in ${persistTo}`);
  } else {
    ensureDatabase(target);
    ensureBuckets(target);
    const { database } = readDeployTarget(env);
    if (isPlaceholderId(database.id)) throw new Error(`wrangler.toml [env.${env}] still has a placeholder database_id`);
  }

  step('Migrations');
  await applyMigrations(state, { stdio: 'inherit' }, target.database.name);

  step('Cases and AI models');
  await seedState(state);

  step('Admin password');
  const secretsDir = mkdtempSync(path.join(os.tmpdir(), 'xdl-deploy-'));
  let secretsFile: string | null = null;
  try {
    if (local) {
      const file = path.join(persistTo, 'secrets.env');
      const { password, drawn } = await newAdminPassword();
      writeFileSync(file, `ADMIN_PASSWORD=${password}\n`, { mode: 0o600 });
      console.log(drawn ? `  ADMIN_PASSWORD (shown only this once): ${password}` : '  ADMIN_PASSWORD set as given');
      console.log(`  kept in ${file}`);
    } else if (hasRemoteSecret(target)) {
      console.log('  the Worker has its ADMIN_PASSWORD (change it with `npm run wrangler -- secret put ADMIN_PASSWORD --env ' + env + '`)');
    } else {
      const { password, drawn } = await newAdminPassword();
      secretsFile = path.join(secretsDir, 'secrets.json');
      writeFileSync(secretsFile, JSON.stringify({ ADMIN_PASSWORD: password }), { mode: 0o600 });
      if (drawn) console.log(`  ADMIN_PASSWORD (shown only this once, keep it): ${password}`);
    }

    step('Web app and Worker');
    await buildSpa();
    const bundle = await bundleWorker(env, path.join(local ? persistTo : secretsDir, 'bundle'));
    const share = ((bundle.gzipBytes / FREE_PLAN_WORKER_LIMIT_BYTES) * 100).toFixed(0);
    console.log(`  Worker: ${(bundle.bytes / 1024).toFixed(0)} KiB, ${(bundle.gzipBytes / 1024).toFixed(0)} KiB gzipped (${share} % of the Free plan's 3 MiB)`);
    if (bundle.gzipBytes > FREE_PLAN_WORKER_LIMIT_BYTES) throw new Error('The Worker is over the Free plan size limit');

    if (local) {
      step('Rehearsal done');
      console.log(
        `  Serve it as the deployed copy would run (at http://127.0.0.1:${REHEARSAL_PORT}): npm run wrangler -- dev --env ${env} --port ${REHEARSAL_PORT} --persist-to ${persistTo} --env-file ${path.join(persistTo, 'secrets.env')}`,
      );
      return;
    }
    step('Deploying');
    const out = wranglerOutput(['deploy', '--env', env, ...(secretsFile ? ['--secrets-file', secretsFile] : [])]);
    process.stdout.write(out);
    const url = /https:\/\/\S+\.workers\.dev/.exec(out)?.[0];
    console.log(`\nXAI Decision Lab is online${url ? `: ${url}` : ' (see the routes above)'}${url ? `  (status: ${url}/status)` : ''}`);
  } finally {
    rmSync(secretsDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  console.error(`\nDeploy stopped: ${message.split('\n')[0]}`);
  if (/wrangler/.test(message)) {
    // wrangler's hints above are for its own commands: say what they mean here.
    console.error(
      '  wrangler failed (its own message is above). Without Cloudflare credentials, log in once with `npm run wrangler -- login` or set CLOUDFLARE_API_TOKEN;' +
        ' a hint to add `--temporary` is for wrangler\'s own `wrangler deploy`, not an option of this script. To rehearse without an account: npm run deploy -- --local',
    );
  }
  process.exitCode = 1;
});
