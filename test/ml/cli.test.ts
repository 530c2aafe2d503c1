import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareWithReference } from '../../ml-assets/lib/evaluate';
import { listFixtures, loadFixture, withinTolerance } from '../../ml-assets/lib/fixtures';
import { fixturesDir, projectRoot } from '../../ml-assets/lib/paths';
import { DATASET_TYPES } from '../../worker/schemas/study';

const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
const cli = path.join(projectRoot, 'ml-assets', 'cli.ts');

describe('npm run ml -- explain', () => {
  it.each(listFixtures())('reproduces LightGBM expected.json for %s to 1e-9', (name) => {
    const dir = path.join(fixturesDir(), name);
    const out = execFileSync(tsx, [cli, 'explain', '--model', path.join(dir, 'model.json'), '--csv', path.join(dir, 'rows.csv')], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const lines = out.trim().split('\n').map((l) => JSON.parse(l) as { raw_score: number; probability: number; contributions: Record<string, number>; base_value: number });
    const expected = loadFixture(name).expected;
    expect(lines).toHaveLength(expected.rows.length);
    const bad: string[] = [];
    expected.rows.forEach((row, i) => {
      const got = lines[row.row ?? i]!;
      if (!withinTolerance(got.raw_score, row.raw_score)) bad.push(`row ${i} raw_score`);
      if (!withinTolerance(got.probability, row.probability)) bad.push(`row ${i} probability`);
      expected.feature_names.forEach((feature, f) => {
        if (!withinTolerance(got.contributions[feature]!, row.contrib[f]!)) bad.push(`row ${i} ${feature}`);
      });
      if (!withinTolerance(got.base_value, row.contrib[expected.feature_names.length]!)) bad.push(`row ${i} base_value`);
    });
    expect(bad.slice(0, 5)).toEqual([]);
  });

  it('fails with a usage message for an unknown command', () => {
    expect(() => execFileSync(tsx, [cli, 'bogus'], { encoding: 'utf8', stdio: 'pipe' })).toThrow(/unknown command bogus/);
  });
});

describe('GBDT trainer against LightGBM on the reference split', () => {
  it.each(DATASET_TYPES)('%s test accuracy trails LightGBM by no more than 0.3 pp', (dataset) => {
    const comparison = compareWithReference(dataset);
    expect(comparison.heldout_rows).toBeGreaterThan(1000);
    expect(comparison.accuracy_difference_pp).toBeGreaterThanOrEqual(-0.3);
    expect(comparison.meets_bar).toBe(true);
  });
});
