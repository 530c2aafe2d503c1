import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCasePools } from '../../worker/ml/case-pools';
import { loadDataset } from '../../ml-assets/lib/datasets';
import { projectRoot } from '../../ml-assets/lib/paths';
import { heldOutSplit } from '../../worker/ml/dataset-build';
import { prepareAll, readAssets } from '../../ml-assets/lib/prepare';
import { aiModelIdentifier, seedStatements } from '../../ml-assets/lib/seed';
import { gbdtModelSchema } from '../../worker/ml/model';
import { trainGbdt } from '../../worker/ml/train';
import { DATASET_TYPES } from '../../worker/schemas/study';
import { syntheticParticipantData } from '../helpers/factories';

beforeAll(() => {
  prepareAll();
}, 120_000);

describe.each(DATASET_TYPES)('prepared assets of %s', (dataset) => {
  it('draws balanced, disjoint pools from the held-out split only', () => {
    const { cases } = readAssets(dataset);
    const data = loadDataset(dataset);
    const heldOut = new Set(heldOutSplit(data.definition, data.examples.map((e) => e.label)).test);
    const byPool = (pool: string, variant: string | null = null) => cases.filter((c) => c.pool === pool && c.pool_variant === variant);
    expect(byPool('tutorial')).toHaveLength(2);
    expect(byPool('pre_experiment')).toHaveLength(200);
    for (const variant of ['a', 'b', 'c', 'd']) {
      const pool = byPool('main_experiment', variant);
      expect(pool).toHaveLength(50);
      expect(pool.filter((c) => c.ground_truth === 1)).toHaveLength(25);
      expect(pool.map((c) => c.case_id).every((id) => /_\d{3}$/.test(id))).toBe(true);
      expect(pool.map((c) => c.case_number).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    }
    expect(byPool('pre_experiment').filter((c) => c.ground_truth === 1)).toHaveLength(100);
    expect(new Set(cases.map((c) => c.case_id)).size).toBe(cases.length);
    expect(new Set(cases.map((c) => c.source_row)).size).toBe(cases.length);
    expect(cases.every((c) => heldOut.has(c.source_row))).toBe(true);
    expect(cases.every((c) => Object.keys(c.features).sort().join() === [...data.featureNames].sort().join())).toBe(true);
  });

  // The codebook's meaning of source_row (test/worker/admin-dashboard.test.ts checks its wording).
  it('numbers source_row among all the rows read from the public files, not within the held-out split', () => {
    const { cases } = readAssets(dataset);
    const data = loadDataset(dataset);
    const heldOutSize = heldOutSplit(data.definition, data.examples.map((e) => e.label)).test.length;
    for (const c of cases) expect(data.examples[c.source_row]!.features).toEqual(c.features);
    // Indices run over every row, beyond the size of the held-out split.
    expect(Math.max(...cases.map((c) => c.source_row))).toBeGreaterThanOrEqual(heldOutSize);
  });

  it('records the AI model report the verification screen shows', () => {
    const { report, model } = readAssets(dataset);
    gbdtModelSchema.parse(model);
    expect(report.cv_folds).toBe(5);
    expect(report.cv_accuracy).toHaveLength(5);
    expect(report.test.accuracy).toBeGreaterThan(0.6);
    expect(report.training_samples + report.test_samples).toBe(report.dataset_info.total_samples);
    expect(report.dataset_info.positive_samples + report.dataset_info.negative_samples).toBe(report.dataset_info.total_samples);
  });
});

describe('determinism', () => {
  it('trains byte-identical models from the same data, valid under the model schema', () => {
    const data = syntheticParticipantData(300, 5);
    const params = { numTrees: 20, numLeaves: 8, minDataInLeaf: 5 };
    const model = trainGbdt(data, params);
    expect(JSON.stringify(model)).toBe(JSON.stringify(trainGbdt(data, params)));
    // The trainer builds its output without parsing it; the schema must still accept it as is.
    expect(gbdtModelSchema.parse(JSON.parse(JSON.stringify(model)))).toEqual(model);
    // Every node's row count is its children's (counts recovered for most frequent bins stay exact).
    for (const tree of model.trees) {
      if (tree.num_leaves === 1) continue;
      const countOf = (child: number) => (child >= 0 ? tree.internal_count[child]! : tree.leaf_count[~child]!);
      expect(tree.internal_count[0]).toBe(300);
      tree.internal_count.forEach((c, node) => expect(countOf(tree.left_child[node]!) + countOf(tree.right_child[node]!)).toBe(c));
    }
  });

  it('draws the same case pools from the same split and seed', () => {
    const data = loadDataset('compas');
    const { test } = heldOutSplit(data.definition, data.examples.map((e) => e.label));
    expect(buildCasePools(data, test, 7)).toEqual(buildCasePools(data, test, 7));
    expect(buildCasePools(data, test, 7)).not.toEqual(buildCasePools(data, test, 8));
  });
});

describe('seed SQL', () => {
  const migrate = () => {
    const db = new DatabaseSync(':memory:');
    const dir = path.join(projectRoot, 'migrations');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql')).sort()) {
      db.exec(readFileSync(path.join(dir, file), 'utf8').replaceAll('--> statement-breakpoint', ''));
    }
    return db;
  };

  it('is idempotent and keeps one active model per dataset', () => {
    const db = migrate();
    const assets = readAssets('compas');
    const modelJson = JSON.stringify(assets.model);
    const statements = seedStatements('compas', assets, modelJson, '2026-01-01T00:00:00.000Z');
    db.exec(statements.join('\n'));
    db.exec(statements.join('\n'));
    expect(db.prepare('select count(*) as n from cases').get()).toEqual({ n: assets.cases.length });
    expect(db.prepare("select model_identifier, status from ai_models").all()).toEqual([
      { model_identifier: aiModelIdentifier('compas', modelJson), status: 'active' },
    ]);
    // A retrained model takes over; the old one is kept, retired.
    const retrained = JSON.stringify({ ...(assets.model as object), metadata: { retrained: true } });
    db.exec(seedStatements('compas', assets, retrained, '2026-01-02T00:00:00.000Z').join('\n'));
    expect(db.prepare("select status, count(*) as n from ai_models group by status order by status").all()).toEqual([
      { status: 'active', n: 1 },
      { status: 'retired', n: 1 },
    ]);
    // A model an administrator retrained in the Worker stays active when the set-up seeds again.
    db.exec(
      `insert into ai_models (dataset_type, model_identifier, status, r2_key, format_version, file_size_bytes, metrics, dataset_info, params, training_time_seconds, trained_at)
       values ('compas', 'ai_compas_admin', 'active', 'k', 1, 1, '{}', '{}', '{"trained_by":"admin_retrain"}', 1, '2026-01-03T00:00:00.000Z')`,
    );
    db.exec("update ai_models set status = 'retired' where model_identifier != 'ai_compas_admin'");
    db.exec(statements.join('\n'));
    expect(db.prepare("select model_identifier from ai_models where status = 'active'").all()).toEqual([{ model_identifier: 'ai_compas_admin' }]);
  });

  it('escapes quotes in case features', () => {
    const db = migrate();
    const assets = readAssets('adult_income');
    const tricky = { ...assets, cases: [{ ...assets.cases[0]!, case_id: "x'); DROP TABLE cases; --", features: { note: "it's" } }] };
    db.exec(seedStatements('adult_income', tricky, JSON.stringify(assets.model), '2026-01-01T00:00:00.000Z').join('\n'));
    expect(db.prepare('select case_id, features from cases').get()).toEqual({
      case_id: "x'); DROP TABLE cases; --",
      features: JSON.stringify({ note: "it's" }),
    });
  });
});
