import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { importLightgbmDump } from '../../worker/ml/lightgbm-import';
import { compileModel } from '../../worker/ml/model';
import { predictRaw } from '../../worker/ml/predict';
import { createShapWorkspace, treeShap } from '../../worker/ml/treeshap';
import { trainGbdt } from '../../worker/ml/train';
import { rowOf, syntheticParticipantData } from '../helpers/factories';

const close = (got: number, want: number) => Math.abs(got - want) <= 1e-9 + 1e-9 * Math.abs(want);

describe('ML core inside workerd', () => {
  it('reproduces the LightGBM user-model fixture exactly', () => {
    const fixture = env.ML_FIXTURE;
    if (!fixture) throw new Error('LightGBM fixtures not found: set XDL_FIXTURES_DIR or place shared/ beside the project');
    const model = compileModel(importLightgbmDump(fixture.model, fixture.encoding));
    const workspace = createShapWorkspace(model);
    let mismatches = 0;
    for (const row of fixture.expected.rows) {
      const x = Float64Array.from(row.x, (v) => (v === null ? NaN : v));
      if (!close(predictRaw(model, x), row.raw_score)) mismatches++;
      treeShap(model, x, workspace).forEach((v, i) => {
        if (!close(v, row.contrib[i]!)) mismatches++;
      });
    }
    expect(fixture.expected.rows.length).toBe(200);
    expect(mismatches).toBe(0);
  });

  it('trains a 200-answer user model and explains it with local accuracy', () => {
    const data = syntheticParticipantData(200, 11);
    const model = compileModel(trainGbdt(data, { numTrees: 50, numLeaves: 8, maxDepth: 3, learningRate: 0.1, minDataInLeaf: 5 }));
    expect(model.trees).toHaveLength(50);
    let correct = 0;
    for (let i = 0; i < 200; i++) {
      const x = rowOf(data, i);
      const raw = predictRaw(model, x);
      if ((raw > 0 ? 1 : 0) === data.labels[i]) correct++;
      const phi = treeShap(model, x);
      expect(Math.abs(phi.reduce((a, b) => a + b, 0) - raw)).toBeLessThan(1e-9);
    }
    // The labels follow a simple rule with 15% noise: a fitted model agrees with most of them.
    expect(correct / 200).toBeGreaterThan(0.8);
  });
});
