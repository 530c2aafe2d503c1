/**
 * The set-up step: for each dataset, read and verify the originals, split 80/20 (stratified,
 * seed 42), draw the case pools from the held-out part, train the AI model, and write
 * generated/{dataset}/{cases,ai-model,report}.json. Skipped when the inputs and the generating
 * code are unchanged since the last run, so `npm start` stays fast.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DATASET_TYPES, type DatasetType } from '../../worker/schemas/study';
import { trainAiModel, type AiModelReport } from './ai-model';
import { buildCasePools, type GeneratedCase } from './case-pools';
import { expectedChecksums, loadDataset, sourceFilesOf } from './datasets';
import { generatedDir, projectRoot } from './paths';
import { stratifiedSplit } from './split';
import { encodeRows } from './training-data';
import type { TrainingTable } from '../../worker/ml/retrain';

export const SPLIT_SEED = 42;
export const TEST_SIZE = 0.2;
const POOL_SEEDS: Record<DatasetType, number> = { adult_income: 1001, speed_dating: 1002, compas: 1003 };

/** The AI model's training split, encoded, for retraining inside the Worker (kept in R2 by the seed step). */
export const TRAINING_TABLE_FILE = 'training-table.json';

function trainingTableOf(data: ReturnType<typeof loadDataset>, indices: readonly number[]): TrainingTable {
  return {
    format: 'xdl-training-table',
    version: 1,
    dataset: data.dataset,
    feature_names: data.featureNames,
    categorical_features: data.categoricalFeatures,
    category_codes: data.categoryCodes,
    rows: encodeRows(data, indices).map((x) => Array.from(x, (v) => (Number.isNaN(v) ? null : v))),
    labels: indices.map((i) => data.examples[i]!.label as 0 | 1),
  };
}

export type DatasetAssets = { cases: GeneratedCase[]; model: unknown; report: AiModelReport };

/** Everything the output depends on: the verified inputs and the code that turns them into assets. */
function fingerprint(dataset: DatasetType): string {
  const hash = createHash('sha256');
  const sums = expectedChecksums();
  for (const file of sourceFilesOf(dataset)) hash.update(`${file}:${sums[file]}\n`);
  for (const dir of ['worker/ml', 'ml-assets/lib']) {
    const full = path.join(projectRoot, dir);
    for (const name of readdirSync(full).filter((n) => n.endsWith('.ts')).sort()) {
      hash.update(name).update(readFileSync(path.join(full, name)));
    }
  }
  return hash.digest('hex');
}

const datasetDir = (dataset: DatasetType) => path.join(generatedDir(), dataset);
const manifestPath = (dataset: DatasetType) => path.join(datasetDir(dataset), 'manifest.json');

export function isUpToDate(dataset: DatasetType): boolean {
  if (!existsSync(manifestPath(dataset))) return false;
  const manifest = JSON.parse(readFileSync(manifestPath(dataset), 'utf8')) as { fingerprint?: string };
  return manifest.fingerprint === fingerprint(dataset);
}

export function prepareDataset(dataset: DatasetType): DatasetAssets {
  const data = loadDataset(dataset);
  const split = stratifiedSplit(data.examples.map((e) => e.label), TEST_SIZE, SPLIT_SEED);
  const cases = buildCasePools(data, split.test, POOL_SEEDS[dataset]);
  const { model, report } = trainAiModel(data, split);
  const dir = datasetDir(dataset);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'cases.json'), JSON.stringify(cases));
  writeFileSync(path.join(dir, 'ai-model.json'), JSON.stringify(model));
  writeFileSync(path.join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(dir, TRAINING_TABLE_FILE), JSON.stringify(trainingTableOf(data, split.train)));
  writeFileSync(manifestPath(dataset), JSON.stringify({ fingerprint: fingerprint(dataset), created_at: new Date().toISOString() }));
  return { cases, model, report };
}

export const trainingTablePath = (dataset: DatasetType) => path.join(datasetDir(dataset), TRAINING_TABLE_FILE);

export function readAssets(dataset: DatasetType): DatasetAssets {
  const dir = datasetDir(dataset);
  const read = (name: string) => JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as unknown;
  return { cases: read('cases.json') as GeneratedCase[], model: read('ai-model.json'), report: read('report.json') as AiModelReport };
}

/** Prepares every dataset that is missing or stale; returns what each one did. */
export function prepareAll(options: { force?: boolean; log?: (line: string) => void } = {}): Record<DatasetType, 'prepared' | 'up to date'> {
  const log = options.log ?? (() => {});
  const outcome = {} as Record<DatasetType, 'prepared' | 'up to date'>;
  for (const dataset of DATASET_TYPES) {
    if (!options.force && isUpToDate(dataset)) {
      outcome[dataset] = 'up to date';
      log(`${dataset}: up to date`);
      continue;
    }
    const started = performance.now();
    const { cases, report } = prepareDataset(dataset);
    outcome[dataset] = 'prepared';
    log(
      `${dataset}: ${cases.length} cases, AI model test accuracy ${(report.test.accuracy * 100).toFixed(2)}% ` +
        `(CV ${(report.cross_validation_score * 100).toFixed(2)}%) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  return outcome;
}
