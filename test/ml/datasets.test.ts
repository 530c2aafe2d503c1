import { mkdtempSync, writeFileSync, cpSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataSourceError, loadDataset } from '../../ml-assets/lib/datasets';
import { loadFixture } from '../../ml-assets/lib/fixtures';
import { dataDir } from '../../ml-assets/lib/paths';
import { Mt19937, stratifiedSplit } from '../../worker/ml/split';
import { definitionOf } from '../../ml-assets/lib/definitions';

describe('dataset preparation from ../shared/data', () => {
  it('reads adult income: 48,842 rows, 14 features, ? as missing, adult.test labels without the dot', () => {
    const d = loadDataset('adult_income');
    expect(d.examples).toHaveLength(32561 + 16281);
    expect(d.featureNames).toHaveLength(14);
    expect(d.examples.filter((e) => e.label === 1)).toHaveLength(7841 + 3846);
    expect(d.examples.filter((e) => e.features.workclass === null)).toHaveLength(1836 + 963);
    expect(d.examples[32561]!.source).toBe('adult.test#0');
    expect(d.categoryCodes.workclass).toMatchObject({ 'Federal-gov': 0, Private: 3, 'Without-pay': 7 });
  });

  it('reads speed dating as Mac Roman and keeps the 3,506 complete rows whose income statistics equal the spec', () => {
    const d = loadDataset('speed_dating');
    expect(d.featureNames).toHaveLength(18);
    expect(d.examples).toHaveLength(3506);
    expect(d.examples.filter((e) => e.label === 1)).toHaveLength(1432);
    const incomes = d.examples.map((e) => e.features.income as number).sort((a, b) => a - b);
    // The spec's quartiles are the sorted values at index ⌊n·q⌋.
    const quantile = (q: number) => incomes[Math.floor(incomes.length * q)]!;
    const s = definitionOf('speed_dating').columns.find((c) => c.name === 'income')!;
    if (s.kind !== 'numeric' || !s.statistics) throw new Error('speed dating income has no statistics');
    const stats = s.statistics;
    expect(incomes[0]).toBe(stats.min);
    expect(incomes.at(-1)).toBe(stats.max);
    expect(Math.round((incomes.reduce((a, b) => a + b, 0) / incomes.length) * 100) / 100).toBe(stats.mean);
    expect(quantile(0.5)).toBe(stats.median);
    expect(quantile(0.25)).toBe(stats.q1);
    expect(quantile(0.75)).toBe(stats.q3);
    expect(incomes.length).toBe(stats.count);
  });

  it('reads COMPAS without any personal column', () => {
    const d = loadDataset('compas');
    expect(d.examples).toHaveLength(7214);
    expect(d.featureNames).toEqual(['sex', 'age', 'race', 'juv_fel_count', 'juv_misd_count', 'juv_other_count', 'priors_count', 'c_charge_degree']);
    const keys = new Set(d.examples.flatMap((e) => Object.keys(e.features)));
    for (const pii of ['id', 'name', 'first', 'last', 'dob', 'c_case_number', 'r_case_number', 'vr_case_number', 'compas_screening_date']) {
      expect(keys.has(pii)).toBe(false);
    }
    expect(d.examples.filter((e) => e.label === 1)).toHaveLength(3251);
  });

  it('refuses a file whose sha256 differs from its definition', () => {
    const copy = mkdtempSync(path.join(os.tmpdir(), 'xdl-data-'));
    cpSync(dataDir(), copy, { recursive: true });
    writeFileSync(path.join(copy, 'compas', 'compas-scores-two-years.csv'), 'id,name\n1,x\n');
    expect(() => loadDataset('compas', { root: copy })).toThrow(DataSourceError);
    expect(() => loadDataset('compas', { root: copy })).toThrow(/sha256/);
  });

  it('explains where to point XDL_DATA_DIR when the folder is wrong', () => {
    expect(() => loadDataset('adult_income', { root: os.tmpdir() })).toThrow(/XDL_DATA_DIR/);
  });
});

describe('stratified split', () => {
  it('draws MT19937 like numpy RandomState(42)', () => {
    const rng = new Mt19937(42);
    // numpy.random.RandomState(42).randint(0, 2**32, dtype=np.uint32)[:3] draws the raw 32-bit outputs.
    expect([rng.nextUint32(), rng.nextUint32(), rng.nextUint32()]).toEqual([1608637542, 3421126067, 4083286876]);
  });

  it.each(['speed_dating', 'compas'] as const)('reproduces the held-out split of the %s LightGBM reference', (dataset) => {
    const fixture = loadFixture(`${dataset}/ai_model`);
    const d = loadDataset(dataset, { allRows: true });
    const { train, test } = stratifiedSplit(d.examples.map((e) => e.label), 0.2, 42);
    const metrics = fixture.metrics as { data: { rows_train: number; rows_heldout: number } };
    expect(train).toHaveLength(metrics.data.rows_train);
    expect(test).toHaveLength(metrics.data.rows_heldout);
    const heldOut = new Set(test.map((i) => d.examples[i]!.source));
    const fixtureSources = (fixture.expected.rows as unknown as { source: string }[]).map((r) => r.source);
    expect(fixtureSources.filter((s) => !heldOut.has(s))).toEqual([]);
  });
});
