/**
 * What `wrangler.toml` says of one of its environments: the Worker's name, its D1 database and
 * its two buckets. The top level is the local development copy (`npm start`); `production` and
 * `staging` are the copies `npm run deploy` puts online. Read, not guessed, so a researcher who
 * renames a database or bucket there renames it everywhere.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import { z } from 'zod';
import { projectRoot } from './paths';

export const wranglerTomlPath = path.join(projectRoot, 'wrangler.toml');

const bindingsSchema = z.object({
  name: z.string().optional(),
  d1_databases: z.array(z.object({ binding: z.string(), database_name: z.string(), database_id: z.string() })),
  r2_buckets: z.array(z.object({ binding: z.string(), bucket_name: z.string() })),
  vars: z.record(z.string(), z.string()).optional(),
});

const configSchema = bindingsSchema.extend({ name: z.string(), env: z.record(z.string(), bindingsSchema).optional() });

export type DeployTarget = {
  /** The wrangler environment, or null for the top level. */
  env: string | null;
  workerName: string;
  database: { name: string; id: string };
  buckets: { models: string; exports: string };
  environment: string | undefined;
};

/** A database ID that only stands for one (`wrangler.toml` before the first deploy). */
export const isPlaceholderId = (id: string) => /^0{8}-0{4}-0{4}-0{4}-0{11}\d$/.test(id);

export function readDeployTarget(env: string | null, file = wranglerTomlPath): DeployTarget {
  const config = configSchema.parse(parse(readFileSync(file, 'utf8')));
  const section = env === null ? config : config.env?.[env];
  if (!section) throw new Error(`wrangler.toml has no [env.${env}]`);
  const db = section.d1_databases.find((d) => d.binding === 'DB');
  const bucket = (binding: string) => {
    const found = section.r2_buckets.find((b) => b.binding === binding);
    if (!found) throw new Error(`wrangler.toml${env ? ` [env.${env}]` : ''} has no R2 bucket bound as ${binding}`);
    return found.bucket_name;
  };
  if (!db) throw new Error(`wrangler.toml${env ? ` [env.${env}]` : ''} has no D1 database bound as DB`);
  return {
    env,
    workerName: section.name ?? (env ? `${config.name}-${env}` : config.name),
    database: { name: db.database_name, id: db.database_id },
    buckets: { models: bucket('MODELS'), exports: bucket('EXPORTS') },
    environment: section.vars?.ENVIRONMENT,
  };
}

/**
 * Writes a database's real ID into the environment's `[[env.NAME.d1_databases]]` block, leaving
 * every other line (and comment) of the file as it was.
 */
export function writeDatabaseId(env: string, databaseName: string, id: string, file = wranglerTomlPath): boolean {
  const text = readFileSync(file, 'utf8');
  const block = new RegExp(`(\\[\\[env\\.${env}\\.d1_databases\\]\\][^\\[]*?database_name = "${databaseName}"[^\\[]*?database_id = ")([^"]*)(")`);
  const match = block.exec(text);
  if (!match) throw new Error(`wrangler.toml: no [[env.${env}.d1_databases]] block for ${databaseName}`);
  if (match[2] === id) return false;
  writeFileSync(file, text.replace(block, `$1${id}$3`));
  return true;
}

/**
 * A copy of wrangler.toml in `dir` whose Worker is `entry` (a test's or a benchmark's, wrapping
 * the platform's own): its relative paths made absolute, without the online environments.
 * Returns the copy's path, for `startLocalWorker`'s `config`.
 */
export function configWithEntry(entry: string, dir: string): string {
  const config = parse(readFileSync(wranglerTomlPath, 'utf8')) as Record<string, unknown> & {
    assets: { directory: string };
    d1_databases: { migrations_dir: string }[];
  };
  config.main = entry;
  config.assets.directory = path.join(projectRoot, config.assets.directory);
  for (const db of config.d1_databases) db.migrations_dir = path.join(projectRoot, db.migrations_dir);
  delete config.env;
  const file = path.join(dir, 'wrangler.toml');
  writeFileSync(file, stringify(config));
  return file;
}
