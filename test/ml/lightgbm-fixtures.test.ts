import { describe, expect, it } from 'vitest';
import { importLightgbmDump } from '../../worker/ml/lightgbm-import';
import { compileModel, encodeRow } from '../../worker/ml/model';
import { predictProbability, predictRaw } from '../../worker/ml/predict';
import { createShapWorkspace, treeShap } from '../../worker/ml/treeshap';
import { listFixtures, loadFixture, toInput, withinTolerance, type ExpectedRow } from '../../ml-assets/lib/fixtures';

const fixtures = listFixtures();

/** Largest deviation beyond tolerance across all outputs of all rows; 0 means every value is within it. */
function check(model: ReturnType<typeof compileModel>, rows: ExpectedRow[]) {
  const workspace = createShapWorkspace(model);
  const failures: string[] = [];
  let maxAbsError = 0;
  const note = (what: string, got: number, want: number) => {
    maxAbsError = Math.max(maxAbsError, Math.abs(got - want));
    if (!withinTolerance(got, want)) failures.push(`${what}: got ${got}, want ${want}`);
  };
  rows.forEach((row, r) => {
    const x = toInput(row.x);
    const raw = predictRaw(model, x);
    note(`row ${r} raw_score`, raw, row.raw_score);
    note(`row ${r} probability`, predictProbability(model, x), row.probability);
    const phi = treeShap(model, x, workspace);
    phi.forEach((v, i) => note(`row ${r} contrib[${i}]`, v, row.contrib[i]!));
    note(`row ${r} local accuracy`, phi.reduce((a, b) => a + b, 0), raw);
  });
  return { failures, maxAbsError };
}

describe('LightGBM 4.6.0 reference fixtures', () => {
  it('finds the shared fixtures', () => {
    expect(fixtures).toEqual(expect.arrayContaining(['adult_income/ai_model', 'adult_income/user_model', 'speed_dating/ai_model', 'compas/ai_model']));
  });

  describe.each(fixtures)('%s', (name) => {
    const fixture = loadFixture(name);
    const model = importLightgbmDump(fixture.model, fixture.encoding);
    const compiled = compileModel(model);

    it('encodes rows.csv exactly as LightGBM was fed', () => {
      fixture.expected.rows.forEach((row, i) => {
        const x = encodeRow(model, fixture.rows[row.row ?? i]!);
        expect(Array.from(x, (v) => (Number.isNaN(v) ? null : v))).toEqual(row.x);
      });
    });

    it('has the base value of the last contrib column', () => {
      expect(withinTolerance(compiled.baseValue, fixture.expected.base_value)).toBe(true);
    });

    it('reproduces raw score, probability and every TreeSHAP contribution to 1e-9', () => {
      const { failures } = check(compiled, fixture.expected.rows);
      expect(failures.slice(0, 5)).toEqual([]);
    });

    it('reproduces the edge cases (NaN, thresholds, next double, zero, unseen categories)', () => {
      expect(fixture.edgeCases, `${name}/edge_cases.json is missing`).toBeDefined();
      expect(fixture.edgeCases!.rows.length).toBeGreaterThan(0);
      const { failures } = check(compiled, fixture.edgeCases!.rows);
      expect(failures.slice(0, 5)).toEqual([]);
    });
  });
});
