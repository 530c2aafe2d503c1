/**
 * The set-up step: for each dataset definition (ml-assets/datasets/*.json), read and verify its
 * source, split it (stratified; 80/20 with seed 42 unless the definition says otherwise), draw
 * the case pools from the held-out part, train the AI model with cross-validation, and write
 * generated/{dataset}/{cases,ai-model,report}.json. Skipped when the definition, its source and
 * the generating code are unchanged since the last run, so `npm start` stays fast.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatasetDefinitionError, type DatasetDefinition } from '../../worker/schemas/dataset-definition';
import type { AiModelReport } from '../../worker/ml/ai-model';
import { buildDataset } from '../../worker/ml/dataset-build';
import type { GeneratedCase } from '../../worker/ml/case-pools';
import { DataSourceError, loadDataset } from './datasets';
import { allDefinitions, definitionOf } from './definitions';
import { generatedDir, projectRoot } from './paths';

/** The AI model's training split, encoded, for retraining inside the Worker (kept in R2 by the seed step). */
export const TRAINING_TABLE_FILE = 'training-table.json';

export type DatasetAssets = { cases: GeneratedCase[]; model: unknown; report: AiModelReport };

/** Everything the output depends on: the definition (its sources' sha256 among it) and the code that turns them into assets. */
function fingerprint(definition: DatasetDefinition): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(definition));
  const sources = [
    ...['worker/ml', 'ml-assets/lib'].flatMap((dir) =>
      readdirSync(path.join(projectRoot, dir)).filter((n) => n.endsWith('.ts')).sort().map((n) => `${dir}/${n}`),
    ),
    // The trainer's parameters and their defaults.
    'worker/schemas/train-params.ts',
  ];
  for (const file of sources) hash.update(path.basename(file)).update(readFileSync(path.join(projectRoot, file)));
  return hash.digest('hex');
}

const datasetDir = (dataset: string) => path.join(generatedDir(), dataset);
const manifestPath = (dataset: string) => path.join(datasetDir(dataset), 'manifest.json');

export function isUpToDate(definition: DatasetDefinition): boolean {
  if (!existsSync(manifestPath(definition.id))) return false;
  const manifest = JSON.parse(readFileSync(manifestPath(definition.id), 'utf8')) as { fingerprint?: string };
  return manifest.fingerprint === fingerprint(definition);
}

export function prepareDataset(dataset: string | DatasetDefinition): DatasetAssets {
  const definition = typeof dataset === 'string' ? definitionOf(dataset) : dataset;
  const { cases, model, report, trainingTable } = buildDataset(loadDataset(definition));
  const dir = datasetDir(definition.id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'cases.json'), JSON.stringify(cases));
  writeFileSync(path.join(dir, 'ai-model.json'), JSON.stringify(model));
  writeFileSync(path.join(dir, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(path.join(dir, TRAINING_TABLE_FILE), JSON.stringify(trainingTable));
  writeFileSync(manifestPath(definition.id), JSON.stringify({ fingerprint: fingerprint(definition), created_at: new Date().toISOString() }));
  return { cases, model, report };
}

export const trainingTablePath = (dataset: string) => path.join(datasetDir(dataset), TRAINING_TABLE_FILE);

export function readAssets(dataset: string): DatasetAssets {
  const dir = datasetDir(dataset);
  const read = (name: string) => JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as unknown;
  return { cases: read('cases.json') as GeneratedCase[], model: read('ai-model.json'), report: read('report.json') as AiModelReport };
}

/** A problem of a definition or its source: its message says what to fix, no stack trace needed. */
export const isSetUpError = (err: unknown): err is Error => err instanceof DataSourceError || err instanceof DatasetDefinitionError;

/** Prepares every defined dataset that is missing or stale; returns what each one did. */
export function prepareAll(options: { force?: boolean; log?: (line: string) => void; definitions?: DatasetDefinition[] } = {}): Record<string, 'prepared' | 'up to date'> {
  const log = options.log ?? (() => {});
  const outcome: Record<string, 'prepared' | 'up to date'> = {};
  for (const definition of options.definitions ?? allDefinitions()) {
    const dataset = definition.id;
    if (!options.force && isUpToDate(definition)) {
      outcome[dataset] = 'up to date';
      log(`${dataset}: up to date`);
      continue;
    }
    const started = performance.now();
    const { cases, report } = prepareDataset(definition);
    outcome[dataset] = 'prepared';
    log(
      `${dataset}: ${cases.length} cases, AI model test accuracy ${(report.test.accuracy * 100).toFixed(2)}% ` +
        `(CV ${(report.cross_validation_score * 100).toFixed(2)}%) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  return outcome;
}
