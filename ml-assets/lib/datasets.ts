/**
 * Reads the three original datasets from the shared data directory into typed tables with the
 * spec's snake_case features. Checksums are verified against SOURCES.md first. Only the feature
 * columns and the label are kept: COMPAS names, birth dates and case numbers never leave the
 * parser.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { FEATURES } from '../../worker/schemas/dataset-features';
import type { DatasetType } from '../../worker/schemas/study';
import { dataDir } from './paths';

export type CellValue = string | number | null;

export type Example = {
  features: Record<string, CellValue>;
  label: 0 | 1;
  /** `file#i`: 0-based data row of the source file (adult.test counted after its first line). */
  source: string;
};

export type PreparedDataset = {
  dataset: DatasetType;
  featureNames: string[];
  /** Features whose values are category labels (strings, or codebook integers for speed dating). */
  categoricalFeatures: string[];
  /** String categories → integer codes, sorted byte-wise over the whole dataset (as the fixtures do). */
  categoryCodes: Record<string, Record<string, number>>;
  examples: Example[];
  sourceFiles: Record<string, string>;
};

export { FEATURES };

const CATEGORICAL: Record<DatasetType, string[]> = {
  adult_income: ['workclass', 'education', 'marital_status', 'occupation', 'relationship', 'race', 'sex', 'native_country'],
  speed_dating: ['race', 'field_cd', 'career_c'],
  compas: ['sex', 'race', 'c_charge_degree'],
};

const FILES: Record<DatasetType, string[]> = {
  adult_income: ['adult_income/adult.data', 'adult_income/adult.test'],
  speed_dating: ['speed_dating/Speed Dating Data.csv'],
  compas: ['compas/compas-scores-two-years.csv'],
};

export class DataSourceError extends Error {
  override readonly name = 'DataSourceError';
}

/** sha256 per `folder/file` from the table in SOURCES.md. */
export function expectedChecksums(root = dataDir()): Record<string, string> {
  const sourcesPath = path.join(root, 'SOURCES.md');
  if (!existsSync(sourcesPath)) {
    throw new DataSourceError(
      `No SOURCES.md in ${root}. Point XDL_DATA_DIR at the folder holding the three datasets (see README, "Data").`,
    );
  }
  const sums: Record<string, string> = {};
  for (const line of readFileSync(sourcesPath, 'utf8').split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length >= 5 && /^[0-9a-f]{64}$/.test(cells[4] ?? '')) sums[`${cells[1]}/${cells[2]}`] = cells[4]!;
  }
  return sums;
}

/** Reads a source file after checking its sha256 against SOURCES.md. */
export function readVerified(relative: string, root = dataDir()): Buffer {
  const expected = expectedChecksums(root)[relative];
  const file = path.join(root, relative);
  if (!existsSync(file)) throw new DataSourceError(`Missing ${file}. Download it as the README's "Data" section says.`);
  if (!expected) throw new DataSourceError(`SOURCES.md lists no sha256 for ${relative}`);
  const bytes = readFileSync(file);
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== expected) {
    throw new DataSourceError(`${relative}: sha256 ${actual} does not match SOURCES.md (${expected}); the file is not the original.`);
  }
  return bytes;
}

const numberOrNull = (raw: string | undefined): number | null => {
  const text = (raw ?? '').trim().replace(/,/g, '');
  if (text === '') return null;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new DataSourceError(`not a number: ${raw}`);
  return value;
};

function codesFor(examples: Example[], features: string[]): Record<string, Record<string, number>> {
  const codes: Record<string, Record<string, number>> = {};
  for (const feature of features) {
    const values = new Set<string>();
    for (const e of examples) {
      const v = e.features[feature];
      if (typeof v === 'string') values.add(v);
    }
    // Byte-wise order, as Python's sorted() on str gives for these ASCII labels.
    const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    codes[feature] = Object.fromEntries(sorted.map((v, i) => [v, i]));
  }
  return codes;
}

function parseAdultFile(text: string, fileName: string, skipFirstLine: boolean): Example[] {
  const lines = text.split('\n');
  const examples: Example[] = [];
  let row = 0;
  for (let i = skipFirstLine ? 1 : 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const cells = line.split(',').map((c) => c.trim());
    if (cells.length !== 15) throw new DataSourceError(`${fileName} line ${i + 1}: expected 15 fields, got ${cells.length}`);
    const features: Record<string, CellValue> = {};
    FEATURES.adult_income.forEach((name, j) => {
      const cell = cells[j]!;
      if (cell === '?') features[name] = null;
      else features[name] = CATEGORICAL.adult_income.includes(name) ? cell : numberOrNull(cell);
    });
    const income = cells[14]!.replace(/\.$/, '');
    if (income !== '>50K' && income !== '<=50K') throw new DataSourceError(`${fileName} line ${i + 1}: unknown label ${cells[14]}`);
    examples.push({ features, label: income === '>50K' ? 1 : 0, source: `${fileName}#${row++}` });
  }
  return examples;
}

function loadAdult(root: string): PreparedDataset {
  const data = readVerified('adult_income/adult.data', root).toString('utf8');
  const test = readVerified('adult_income/adult.test', root).toString('utf8');
  const examples = [...parseAdultFile(data, 'adult.data', false), ...parseAdultFile(test, 'adult.test', true)];
  return {
    dataset: 'adult_income',
    featureNames: FEATURES.adult_income,
    categoricalFeatures: CATEGORICAL.adult_income,
    categoryCodes: codesFor(examples, CATEGORICAL.adult_income),
    examples,
    sourceFiles: { train: 'adult.data', test: 'adult.test' },
  };
}

function parseCsv(text: string, file: string): string[][] {
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: true });
  if (parsed.errors.length > 0) throw new DataSourceError(`${file}: ${parsed.errors[0]!.message} (row ${parsed.errors[0]!.row})`);
  return parsed.data;
}

/**
 * Speed dating: Mac Roman text; one row per date. The platform keeps rows with all 18 features
 * and `dec` (3,506), the population of the spec's income statistics; `allRows` keeps every row
 * with missing features as null, as the LightGBM reference was trained.
 */
function loadSpeedDating(root: string, allRows: boolean): PreparedDataset {
  const relative = 'speed_dating/Speed Dating Data.csv';
  const text = new TextDecoder('macintosh').decode(readVerified(relative, root));
  const [header, ...rows] = parseCsv(text, relative);
  const column = (name: string) => {
    const index = header!.indexOf(name);
    if (index < 0) throw new DataSourceError(`${relative}: no column ${name}`);
    return index;
  };
  const featureColumns = FEATURES.speed_dating.map(column);
  const decColumn = column('dec');
  const examples: Example[] = [];
  rows.forEach((cells, i) => {
    const values = featureColumns.map((c) => numberOrNull(cells[c]));
    const dec = numberOrNull(cells[decColumn]);
    if (dec === null) throw new DataSourceError(`${relative} row ${i}: dec is empty`);
    if (!allRows && values.some((v) => v === null)) return;
    const features: Record<string, CellValue> = {};
    FEATURES.speed_dating.forEach((name, j) => (features[name] = values[j]!));
    examples.push({ features, label: dec === 1 ? 1 : 0, source: `Speed Dating Data.csv#${i}` });
  });
  // The spec's income statistics (part 1 §9) describe exactly these rows.
  if (!allRows && examples.length !== 3506) {
    throw new DataSourceError(`${relative}: expected 3,506 complete rows, found ${examples.length}`);
  }
  return {
    dataset: 'speed_dating',
    featureNames: FEATURES.speed_dating,
    categoricalFeatures: CATEGORICAL.speed_dating,
    // race, field_cd and career_c are already codebook integers and serve as their own codes.
    categoryCodes: {},
    examples,
    sourceFiles: { all: 'Speed Dating Data.csv' },
  };
}

/**
 * COMPAS: all 7,214 rows (as the reference fixtures use them). Columns are picked by their first
 * occurrence (`priors_count` and `decile_score` appear twice); no other column is read.
 */
function loadCompas(root: string): PreparedDataset {
  const relative = 'compas/compas-scores-two-years.csv';
  const [header, ...rows] = parseCsv(readVerified(relative, root).toString('utf8'), relative);
  const column = (name: string) => {
    const index = header!.map((h) => h.trim()).indexOf(name);
    if (index < 0) throw new DataSourceError(`${relative}: no column ${name}`);
    return index;
  };
  const featureColumns = FEATURES.compas.map(column);
  const labelColumn = column('two_year_recid');
  const examples: Example[] = rows.map((cells, i) => {
    const features: Record<string, CellValue> = {};
    FEATURES.compas.forEach((name, j) => {
      const raw = (cells[featureColumns[j]!] ?? '').trim();
      features[name] = CATEGORICAL.compas.includes(name) ? (raw === '' ? null : raw) : numberOrNull(raw);
    });
    return { features, label: numberOrNull(cells[labelColumn]) === 1 ? 1 : 0, source: `compas-scores-two-years.csv#${i}` };
  });
  return {
    dataset: 'compas',
    featureNames: FEATURES.compas,
    categoricalFeatures: CATEGORICAL.compas,
    categoryCodes: codesFor(examples, CATEGORICAL.compas),
    examples,
    sourceFiles: { all: 'compas-scores-two-years.csv' },
  };
}

export function loadDataset(dataset: DatasetType, options: { allRows?: boolean; root?: string } = {}): PreparedDataset {
  const root = options.root ?? dataDir();
  switch (dataset) {
    case 'adult_income':
      return loadAdult(root);
    case 'speed_dating':
      return loadSpeedDating(root, options.allRows ?? false);
    case 'compas':
      return loadCompas(root);
  }
}

export const sourceFilesOf = (dataset: DatasetType) => FILES[dataset];
