/**
 * Datasets as definitions: the three shipped ones reproduce the assets the platform generated
 * before they were definitions, bit for bit; a definition error names the column and the rule; and
 * a researcher's own task (made up here, of a different shape) goes through set-up.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSourceError, loadDataset } from '../../ml-assets/lib/datasets';
import { allDefinitions, readDefinitionFile } from '../../ml-assets/lib/definitions';
import { withUnderstandingSample } from '../../ml-assets/lib/dataset-registry';
import { deriveUnderstandingSample } from '../../worker/ml/understanding-sample';
import { dataDir, projectRoot } from '../../ml-assets/lib/paths';
import { heldOutSplit } from '../../worker/ml/dataset-build';
import { prepareAll, prepareDataset, readAssets, TRAINING_TABLE_FILE } from '../../ml-assets/lib/prepare';
import { seedLocal } from '../../ml-assets/lib/seed';
import { applyLocalMigrations, localD1Rows } from '../../ml-assets/lib/wrangler';
import { DatasetDefinitionError, parseDatasetDefinition, type DatasetDefinitionInput } from '../../worker/schemas/dataset-definition';
import { DATASET_TYPES } from '../../worker/schemas/study';
import { LOAN_FILE, LOAN_ID, loanCsv, loanDefinition } from '../helpers/synthetic-dataset';

const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
const cli = path.join(projectRoot, 'ml-assets', 'cli.ts');

/**
 * sha256 of a generated file's JSON, without the one figure that varies between runs (training
 * time) and the report's baselines (added to the report after these digests were recorded; the
 * model file does not hold them).
 */
function digest(dir: string, dataset: string, file: string): string {
  const strip = (node: unknown): unknown => {
    if (node && typeof node === 'object') {
      delete (node as Record<string, unknown>).training_time_seconds;
      delete (node as Record<string, unknown>).baselines;
      Object.values(node).forEach(strip);
    }
    return node;
  };
  const json = strip(JSON.parse(readFileSync(path.join(dir, dataset, file), 'utf8')));
  return createHash('sha256').update(JSON.stringify(json)).digest('hex');
}

/**
 * What set-up generated for the shipped datasets from their hard-coded readers (commit 98a7a0c),
 * recorded before they became definitions: the definitions must give exactly the same cases,
 * models, reports and training tables, so every stored case and figure stays valid.
 */
const BEFORE_DEFINITIONS: Record<string, Record<string, string>> = {
  adult_income: {
    'cases.json': '6aafddc4d5591cdd81c0a647e9823229415c9f1d31adaf654a1606252a9cb8a2',
    'ai-model.json': '522fddd70a81a09c01e0351d78a5c4c0863da361d03f784d76fa242bd429e507',
    'report.json': '72c3e3c20f2cebbab45542b9fa87c0696902561361f1d92ce0a049fefba85736',
    'training-table.json': '2ae3e457c9406db505f751cc02b7136e19a64b8358798398fe034b1760737e0c',
  },
  speed_dating: {
    'cases.json': 'd0afb73f7cda1ff0f951349929399024a379b0055da044b0b6948f2a413502a1',
    'ai-model.json': '594a57b966bf190cd84af1894208690fe18c45b24e3cca5a88937b6a370715ae',
    'report.json': '6d1ecc3860b60ea36e10ed7678457e795885646553e725b58a58ee1fe7bb782a',
    'training-table.json': 'e6e1e9f928bbe4e55923ba3bfa108923c3c33c79d8bd2f67c520f3b381097e5f',
  },
  compas: {
    'cases.json': '5494a01c2caa99e5fbbd3885d69a65f07f28eb18c99e853a07b1bdfa8963074e',
    'ai-model.json': '024e477cfbb8c8eb20010d50a76ecf0d2577d4f4bd51afe59b3267e154358710',
    'report.json': '72df861c2c36212fcbb69a67202843c87a48d838c81ee429233d9cac6f7d7be3',
    'training-table.json': '062e9056ccbf031a97c297b325fdaf92cea9f5c48882086b57f4cecbaadcfc77',
  },
};

/** Writes the made-up loan task: its CSV under `dataDir`, its definition under `definitionsDir`. */
function writeLoanDataset(dataDir: string, definitionsDir: string): void {
  const csv = loanCsv(4000);
  mkdirSync(path.join(dataDir, path.dirname(LOAN_FILE)), { recursive: true });
  writeFileSync(path.join(dataDir, LOAN_FILE), csv);
  mkdirSync(definitionsDir, { recursive: true });
  writeFileSync(path.join(definitionsDir, `${LOAN_ID}.json`), JSON.stringify(loanDefinition(createHash('sha256').update(csv).digest('hex')), null, 2));
}

/** Sets environment variables; the function returned puts back what they were. */
function setEnv(vars: Record<string, string>): () => void {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  return () => {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/** Runs `fn` with environment variables set, restoring them after. */
function withEnv<T>(vars: Record<string, string>, fn: () => T): T {
  const restore = setEnv(vars);
  try {
    return fn();
  } finally {
    restore();
  }
}

describe('the shipped datasets as definitions', () => {
  const generated = mkdtempSync(path.join(os.tmpdir(), 'xdl-generated-'));

  it('are the three study datasets, each valid', () => {
    expect(allDefinitions().map((d) => d.id).sort()).toEqual([...DATASET_TYPES].sort());
  });

  it('name the same source files and sha256 as SOURCES.md, the data folder\'s provenance', () => {
    const sources = readFileSync(path.join(dataDir(), 'SOURCES.md'), 'utf8');
    for (const definition of allDefinitions()) {
      for (const file of definition.source.files) {
        const [folder, name] = file.path.split('/');
        expect(sources).toContain(`| ${folder} | ${name} |`);
        expect(sources.split('\n').find((line) => line.includes(`| ${folder} | ${name} |`))).toContain(file.sha256);
      }
    }
  });

  it.each(DATASET_TYPES)('%s: cases, model, report and training table are bit-identical to those before definitions', (dataset) => {
    withEnv({ XDL_GENERATED_DIR: generated }, () => prepareDataset(dataset));
    const files = ['cases.json', 'ai-model.json', 'report.json', TRAINING_TABLE_FILE];
    expect(Object.fromEntries(files.map((f) => [f, digest(generated, dataset, f)]))).toEqual(BEFORE_DEFINITIONS[dataset]);
  });
});

describe('a definition error names the column and the rule', () => {
  const valid = () => structuredClone(loanDefinition('0'.repeat(64))) as DatasetDefinitionInput & { columns: Record<string, unknown>[] };
  const errorOf = (input: unknown) => {
    try {
      parseDatasetDefinition(input, 'loan_approval.json');
    } catch (err) {
      expect(err).toBeInstanceOf(DatasetDefinitionError);
      return (err as Error).message;
    }
    throw new Error('the definition was accepted');
  };

  it('accepts the valid one', () => {
    expect(parseDatasetDefinition(valid()).columns).toHaveLength(10);
  });

  it.each([
    ['an unknown number format', (d: ReturnType<typeof valid>) => (d.columns[3]!.format = 'stars'), /columns\[3\] \(credit_score\)\.format/],
    ['a value label outside the codes', (d: ReturnType<typeof valid>) => ((d.columns[8]!.values as Record<string, unknown>)['9'] = { ja: 'x', en: 'x' }), /column region: value label 9 is not a code from 1 to 4/],
    ['a column named twice', (d: ReturnType<typeof valid>) => (d.columns[1]!.name = 'income'), /column income: named twice/],
    ['the outcome read as a feature', (d: ReturnType<typeof valid>) => (d.columns[0]!.source = 'approved'), /column income: reads the outcome column approved as a feature/],
    ['an ignored column read', (d: ReturnType<typeof valid>) => (d.columns[0]!.source = 'applicant_name'), /column income: applicant_name is listed in ignoredColumns/],
    ['an odd pool', (d: ReturnType<typeof valid>) => (d.pools = { seed: 1, pre: 201 }), /pool sizes must be even/],
    ['an unknown trainer parameter', (d: ReturnType<typeof valid>) => (d.model = { params: { numTress: 10 } }), /model\.params/],
    ['an outcome value on both sides', (d: ReturnType<typeof valid>) => (d.outcome = { column: 'approved', positive: ['yes'], negative: ['yes', 'no'] }), /yes is both positive and negative/],
    ['a percentile column without statistics', (d: ReturnType<typeof valid>) => (d.columns[0]!.format = 'percentile'), /column income: format percentile needs statistics/],
    ['a column name that is not snake case', (d: ReturnType<typeof valid>) => (d.columns[2]!.name = 'Years Employed'), /columns\[2\] \(Years Employed\)\.name: a column name is lower-case snake case/],
  ])('%s', (_, change, message) => {
    const d = valid();
    change(d);
    expect(errorOf(d)).toMatch(message);
  });

  it('stops set-up at pools smaller than a phase of the study, naming both numbers', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'xdl-definitions-'));
    writeFileSync(path.join(dir, `${LOAN_ID}.json`), JSON.stringify({ ...valid(), pools: { seed: 1, pre: 40, main: 20, mainPools: 2 } }));
    expect(() => readDefinitionFile(path.join(dir, `${LOAN_ID}.json`))).toThrow(/pools\.pre is 40, but every participant judges 200 pre-experiment cases.*pools\.main is 20, but every participant judges 50 main-experiment cases/);
  });

  it('stops `npm run ml -- prepare` with that message, exit code 2', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'xdl-definitions-'));
    const d = valid();
    d.columns[3]!.format = 'stars';
    writeFileSync(path.join(dir, `${LOAN_ID}.json`), JSON.stringify(d));
    let failure: { status: number; stderr: string } | null = null;
    try {
      execFileSync(tsx, [cli, 'prepare'], { encoding: 'utf8', stdio: 'pipe', env: { ...process.env, XDL_DATASETS_DIR: dir } });
    } catch (err) {
      failure = err as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr).toMatch(/loan_approval\.json is not valid:\n.*columns\[3\] \(credit_score\)\.format/);
  });
});

describe('a researcher\'s own task through set-up', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'xdl-own-task-'));
  const dataDir = path.join(root, 'data');
  const definitionsDir = path.join(root, 'datasets');
  const generated = path.join(root, 'generated');
  let restoreEnv = () => {};

  beforeAll(() => {
    writeLoanDataset(dataDir, definitionsDir);
    restoreEnv = setEnv({ XDL_DATA_DIR: dataDir, XDL_DATASETS_DIR: definitionsDir, XDL_GENERATED_DIR: generated });
    expect(prepareAll({ force: true })).toEqual({ [LOAN_ID]: 'prepared' });
  });
  afterAll(() => restoreEnv());

  it('reads only the defined columns: the identifier and the name never leave the parser', () => {
    const data = loadDataset(LOAN_ID);
    expect(data.examples).toHaveLength(4000);
    expect(data.featureNames).toEqual(['income', 'debt_ratio', 'years_employed', 'credit_score', 'open_accounts', 'late_payments', 'housing', 'purpose', 'region', 'education']);
    const everything = [readFileSync(path.join(generated, LOAN_ID, 'cases.json'), 'utf8'), readFileSync(path.join(generated, LOAN_ID, 'ai-model.json'), 'utf8'), readFileSync(path.join(generated, LOAN_ID, TRAINING_TABLE_FILE), 'utf8')].join('\n');
    expect(everything).not.toMatch(/applicant|A1000\d\d|Example|Sample|Placeholder|Testcase/);
  });

  it('reads missing values written as NA or left empty as missing, codes as numbers and ordinal levels as positions', () => {
    const { examples } = loadDataset(LOAN_ID);
    const csvRows = loanCsv(4000).trim().split('\n').slice(1);
    const incomeCells = csvRows.map((r) => r.split(',')[3]!); // the quoted name holds one comma
    expect(incomeCells.filter((c) => c === 'NA').length).toBeGreaterThan(20);
    expect(incomeCells.filter((c) => c === '').length).toBeGreaterThan(20);
    expect(examples.filter((e) => e.features.income === null)).toHaveLength(incomeCells.filter((c) => c === 'NA' || c === '').length);
    expect(new Set(examples.map((e) => e.features.region))).toEqual(new Set([1, 2, 3, 4]));
    expect(new Set(examples.map((e) => e.features.education))).toEqual(new Set([0, 1, 2, 3]));
    expect(new Set(examples.map((e) => e.features.housing))).toEqual(new Set(['own', 'rent', 'mortgage', null]));
  });

  it('draws balanced, disjoint pools from the held-out rows of a 30/70 outcome', () => {
    const { cases } = readAssets(LOAN_ID);
    const data = loadDataset(LOAN_ID);
    const share = data.examples.filter((e) => e.label === 1).length / data.examples.length;
    expect(share).toBeGreaterThan(0.25);
    expect(share).toBeLessThan(0.35);
    const heldOut = new Set(heldOutSplit(data.definition, data.examples.map((e) => e.label)).test);
    const pool = (name: string, variant: string | null = null) => cases.filter((c) => c.pool === name && c.pool_variant === variant);
    expect(pool('tutorial').map((c) => c.case_id)).toEqual([`tutorial_${LOAN_ID}_1`, `tutorial_${LOAN_ID}_2`]);
    expect(pool('pre_experiment')).toHaveLength(200);
    expect(pool('pre_experiment').filter((c) => c.ground_truth === 1)).toHaveLength(100);
    for (const variant of ['a', 'b', 'c', 'd']) {
      expect(pool('main_experiment', variant).filter((c) => c.ground_truth === 1)).toHaveLength(25);
      expect(pool('main_experiment', variant)).toHaveLength(50);
    }
    expect(new Set(cases.map((c) => c.source_row)).size).toBe(cases.length);
    expect(cases.every((c) => heldOut.has(c.source_row) && c.dataset_type === LOAN_ID)).toBe(true);
  });

  it('trains its AI model with 5-fold cross-validation, better than always answering the majority', () => {
    const { report, model } = readAssets(LOAN_ID);
    expect(report.cv_folds).toBe(5);
    expect(report.test.accuracy).toBeGreaterThan(0.75);
    expect(report.dataset_info.total_samples).toBe(4000);
    expect((model as { categorical_features: string[] }).categorical_features).toEqual(['housing', 'purpose', 'region']);
  });

  it('is deterministic: a second set-up writes the same assets', () => {
    const files = ['cases.json', 'ai-model.json', TRAINING_TABLE_FILE];
    const first = files.map((f) => digest(generated, LOAN_ID, f));
    prepareDataset(LOAN_ID);
    expect(files.map((f) => digest(generated, LOAN_ID, f))).toEqual(first);
  });

  it('stops when the held-out rows cannot fill the pools, saying what they need', () => {
    const tooBig = parseDatasetDefinition({ ...loanDefinition(loadDataset(LOAN_ID).definition.source.files[0]!.sha256), pools: { seed: 1, pre: 600 } });
    expect(() => prepareDataset(tooBig)).toThrow(/loan_approval: the pools need 401 held-out rows of each outcome .* but the positive outcome "[^"]+" has \d+ held-out rows of the 401 needed/);
  });

  it('derives the understanding sample from the data when the definition gives none, as the dashboard does, and says what it needs when the data is not there', () => {
    const own = loadDataset(LOAN_ID).definition;
    const bare = parseDatasetDefinition({ ...loanDefinition(own.source.files[0]!.sha256), understandingSample: undefined });
    expect(bare.understandingSample).toBeUndefined();
    const completed = withUnderstandingSample(bare);
    // The same function the Worker's check and add run, on the same rows.
    expect(completed.understandingSample).toEqual(deriveUnderstandingSample(loadDataset(bare)));
    expect(completed.understandingSample!.features.a.feature).toBe('credit_score');
    // Validated like a written one.
    expect(parseDatasetDefinition(completed).understandingSample).toEqual(completed.understandingSample);
    const elsewhere = parseDatasetDefinition({ ...loanDefinition(own.source.files[0]!.sha256), understandingSample: undefined, source: { files: [{ path: 'nowhere/none.csv', sha256: own.source.files[0]!.sha256 }] } });
    expect(() => withUnderstandingSample(elsewhere)).toThrow(/gives no understandingSample, so it is derived from the data, which could not be read .* Place the CSV in the data folder or give understandingSample/);
  });

  it('stops seeding an id an administrator already added on the dashboard, naming that dataset (one id, one owner)', async () => {
    const state = path.join(root, 'state');
    await applyLocalMigrations(state);
    const at = '2026-11-28T01:02:03.000Z';
    localD1Rows(state, `insert into added_datasets (dataset_type, definition, source_sha256, source_rows, case_count, model_identifier, enabled, updated_at, created_at) values ('${LOAN_ID}', '{}', 'x', 569, 252, 'ai_${LOAN_ID}_x', 1, '${at}', '${at}')`);
    await expect(seedLocal({ persistTo: state })).rejects.toThrow(`ml-assets/datasets/${LOAN_ID}.json: the id ${LOAN_ID} is a dataset an administrator added on the dashboard on ${at}`);
    // Nothing was seeded: no case of the file's dataset reached D1.
    expect(localD1Rows<{ n: number }>(state, `select count(*) as n from cases where dataset_type = '${LOAN_ID}'`)[0]!.n).toBe(0);
  });

  it('stops at a source value its column cannot hold, naming the file, row and column', () => {
    const csv = loanCsv(4000).replace(/\n(A100005,"[^"]+",)(\d*|NA),/, '\n$1lots,');
    writeFileSync(path.join(dataDir, LOAN_FILE), csv);
    const definition = parseDatasetDefinition(loanDefinition(createHash('sha256').update(csv).digest('hex')));
    expect(() => loadDataset(definition)).toThrow(DataSourceError);
    expect(() => loadDataset(definition)).toThrow(`${LOAN_FILE} row 6, column income: "lots" is not a number`);
  });
});
