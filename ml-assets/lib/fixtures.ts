/** Reads the LightGBM reference fixtures (model dump, encoding, rows, expected outputs). */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { fixturesDir } from './paths';

export type ExpectedRow = {
  row?: number;
  case?: string;
  x: (number | null)[];
  raw_score: number;
  probability: number;
  contrib: number[];
};

export type Fixture = {
  name: string;
  dir: string;
  model: unknown;
  encoding: unknown;
  rows: Record<string, string>[];
  expected: { base_value: number; feature_names: string[]; rows: ExpectedRow[] };
  edgeCases: { rows: ExpectedRow[] } | null;
  metrics: Record<string, unknown>;
};

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as unknown;

export function readCsvRows(file: string): Record<string, string>[] {
  const parsed = Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true });
  if (parsed.errors.length > 0) throw new Error(`${file}: ${parsed.errors[0]!.message}`);
  return parsed.data;
}

/** Every fixture folder holding a model.json, e.g. `adult_income/ai_model`. */
export function listFixtures(root = fixturesDir()): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(path.join(root, d.name), { withFileTypes: true })
        .filter((m) => m.isDirectory() && existsSync(path.join(root, d.name, m.name, 'model.json')))
        .map((m) => `${d.name}/${m.name}`),
    )
    .sort();
}

export function loadFixture(name: string, root = fixturesDir()): Fixture {
  const dir = path.join(root, name);
  const edge = path.join(dir, 'edge_cases.json');
  return {
    name,
    dir,
    model: readJson(path.join(dir, 'model.json')),
    encoding: readJson(path.join(dir, 'encoding.json')),
    rows: readCsvRows(path.join(dir, 'rows.csv')),
    expected: readJson(path.join(dir, 'expected.json')) as Fixture['expected'],
    edgeCases: existsSync(edge) ? (readJson(edge) as Fixture['edgeCases']) : null,
    metrics: readJson(path.join(dir, 'metrics.json')) as Record<string, unknown>,
  };
}

/** `null` in the fixtures' encoded inputs means NaN. */
export const toInput = (x: (number | null)[]) => Float64Array.from(x, (v) => (v === null ? NaN : v));

/** The fixtures' tolerance: |got − want| ≤ 1e-9 + 1e-9·|want|. */
export const withinTolerance = (got: number, want: number) => Math.abs(got - want) <= 1e-9 + 1e-9 * Math.abs(want);
