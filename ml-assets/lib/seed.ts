/**
 * Seeds the generated assets into a D1 and R2: the local ones `wrangler dev` uses, or a deployed
 * copy's (`npm run deploy`), through the same statements: cases (inserted once, never changed:
 * answers refer to them), AI model files and training tables in R2, and the models' metadata
 * rows, the newest set-up model of each dataset becoming the active one unless an
 * administrator's retrained or uploaded model is. Idempotent: running it again changes nothing.
 * Never part of a migration.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SpawnOptions } from 'node:child_process';
import { DatasetDefinitionError } from '../../worker/schemas/dataset-definition';
import { setUpMetrics } from '../../worker/ml/ai-model';
import { gbdtModelSchema } from '../../worker/ml/model';
import type { DatasetType } from '../../worker/schemas/study';
import { allDefinitions } from './definitions';
import { r2Keys } from '../../worker/storage/r2';
import { readDeployTarget } from './wrangler-config';
import { applyLocalMigrations, d1Rows, offlineEnv, runTool, stateFlags, type StateTarget } from './wrangler';
import { prepareAll, readAssets, trainingTablePath, type DatasetAssets } from './prepare';

/** SQL string literal: single quotes doubled; SQLite has no other escapes. */
const literal = (value: string | number | null): string => {
  if (value === null) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot store ${value} in SQL`);
    return String(value);
  }
  return `'${value.replace(/'/g, "''")}'`;
};

export const aiModelIdentifier = (dataset: DatasetType, modelJson: string) =>
  `ai_${dataset}_${createHash('sha256').update(modelJson).digest('hex').slice(0, 12)}`;

/** Statements for one dataset: its cases and its AI model row (the file goes to R2 separately). */
export function seedStatements(dataset: DatasetType, assets: DatasetAssets, modelJson: string, now: string): string[] {
  const statements = assets.cases.map(
    (c) =>
      `INSERT INTO cases (case_id, dataset_type, pool, pool_variant, case_number, features, ground_truth, source_row, created_at) VALUES (` +
      [c.case_id, c.dataset_type, c.pool, c.pool_variant, c.case_number, JSON.stringify(c.features), c.ground_truth, c.source_row, now]
        .map(literal)
        .join(', ') +
      `) ON CONFLICT (case_id) DO NOTHING;`,
  );
  const model = gbdtModelSchema.parse(JSON.parse(modelJson));
  const identifier = aiModelIdentifier(dataset, modelJson);
  const r = assets.report;
  const metrics = setUpMetrics(r);

  statements.push(
    `INSERT INTO ai_models (dataset_type, model_identifier, status, r2_key, format_version, file_size_bytes, metrics, dataset_info, params, training_time_seconds, trained_at) VALUES (` +
      [
        dataset,
        identifier,
        'retired',
        r2Keys.aiModel(dataset, identifier),
        model.version,
        Buffer.byteLength(modelJson),
        JSON.stringify(metrics),
        JSON.stringify(r.dataset_info),
        JSON.stringify(r.params),
        r.training_time_seconds,
        now,
      ]
        .map(literal)
        .join(', ') +
      `) ON CONFLICT (model_identifier) DO NOTHING;`,
    // The set-up's model becomes the active one unless an administrator's retrained or uploaded model is.
    `UPDATE ai_models SET status = CASE WHEN model_identifier = ${literal(identifier)} THEN 'active' ELSE 'retired' END WHERE dataset_type = ${literal(dataset)}
       AND NOT EXISTS (SELECT 1 FROM ai_models WHERE dataset_type = ${literal(dataset)} AND status = 'active' AND json_extract(params, '$.trained_by') IN ('admin_retrain', 'admin_upload'));`,
  );
  return statements;
}

/** The datasets the spec names: the dashboard cannot add these ids, so only a researcher's own ids are looked up there. */
const SPEC_DATASET_IDS = ['adult_income', 'speed_dating', 'compas'];

/**
 * One dataset id, one owner: an id a researcher's definition file gives that an administrator
 * already added on the dashboard of this database stops set-up (the file's dataset would take the
 * place of the dashboard's and retire its model), naming the dashboard's dataset and when it was
 * added. The dashboard refuses the other way round (`dataset_exists`).
 */
function refuseDashboardIds(target: StateTarget, database: string, ids: string[]): void {
  const own = ids.filter((id) => !SPEC_DATASET_IDS.includes(id));
  if (own.length === 0) return;
  const taken = d1Rows<{ id: string; created_at: string }>(
    target,
    `select dataset_type as id, created_at from added_datasets where dataset_type in (${own.map(literal).join(', ')})`,
    database,
  );
  if (taken.length > 0) {
    throw new DatasetDefinitionError(
      taken
        .map((r) => `ml-assets/datasets/${r.id}.json: the id ${r.id} is a dataset an administrator added on the dashboard on ${r.created_at}; one id has one owner, so give the file's definition another id (the dashboard's dataset and its participants stay as they are)`)
        .join('\n'),
    );
  }
}

/** Seeds every dataset's assets into local D1/R2 (the default state, or `persistTo`). */
export const seedLocal = (options: { persistTo?: string; stdio?: SpawnOptions['stdio'] } = {}) => seedState({ persistTo: options.persistTo }, options.stdio);

/** Seeds every dataset's assets into the D1 and R2 of `target`, with the names its configuration gives them. */
export async function seedState(target: StateTarget, stdio: SpawnOptions['stdio'] = 'ignore'): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'xdl-seed-'));
  const where = stateFlags(target);
  const { database, buckets } = readDeployTarget(target.env ?? null);
  try {
    const now = new Date().toISOString();
    const statements: string[] = [];
    const objects: { key: string; file: string }[] = [];
    // Every definition set-up reads now (not the list this process was loaded with: a definition may have just been added).
    const ids = allDefinitions().map((d) => d.id);
    refuseDashboardIds(target, database.name, ids);
    for (const dataset of ids) {
      const assets = readAssets(dataset);
      const modelJson = JSON.stringify(assets.model);
      const identifier = aiModelIdentifier(dataset, modelJson);
      const modelFile = path.join(dir, `${identifier}.json`);
      writeFileSync(modelFile, modelJson);
      objects.push({ key: r2Keys.aiModel(dataset, identifier), file: modelFile }, { key: r2Keys.trainingTable(dataset), file: trainingTablePath(dataset) });
      statements.push(...seedStatements(dataset, assets, modelJson, now));
    }
    // One wrangler run for every file (each run costs seconds of start-up).
    const listFile = path.join(dir, 'objects.json');
    writeFileSync(listFile, JSON.stringify(objects));
    await runTool('wrangler', ['r2', 'bulk', 'put', buckets.models, '--filename', listFile, '--content-type', 'application/json', '--force', ...where], { stdio });
    const sqlFile = path.join(dir, 'seed.sql');
    writeFileSync(sqlFile, statements.join('\n'));
    // CI=true: a remote import asks no confirmation.
    await runTool('wrangler', ['d1', 'execute', database.name, '--file', sqlFile, ...where], { stdio, env: offlineEnv({ CI: 'true' }) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A throw-away local state for a test or benchmark run: D1 migrated, assets prepared and seeded. */
export async function prepareLocalState(persistTo: string): Promise<void> {
  await applyLocalMigrations(persistTo, { stdio: 'ignore' });
  prepareAll();
  await seedLocal({ persistTo });
}
