/**
 * The dashboard's check of a researcher's new dataset: definition and CSV in, what the Worker found
 * out (by the rules set-up reads with), nothing stored; a broken definition or CSV is refused with a
 * detail that names the column, row and rule.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { applyDefinitionChanges, datasetPreviewSchema } from '../../worker/schemas/dataset-definition';
import { DATASET_TYPES, datasetDefinitions } from '../../worker/schemas/study';
import { adminCookie, api, postJson } from '../helpers/api';
import { base64Of, sha256Of, studyRowCount } from '../helpers/dataset-upload';
import { LOAN_ID, loanCsv, loanDefinition } from '../helpers/synthetic-dataset';

let cookie: string;
beforeAll(async () => {
  cookie = await adminCookie();
});

const preview = (body: unknown, headers: Record<string, string> = { Cookie: cookie }) => postJson('/api/admin/datasets/preview', body, headers);

async function refusal(res: Response, code: string): Promise<string> {
  const text = await res.text();
  expect(res.status, text).toBe(400);
  expect(JSON.parse(text).code).toBe(code);
  return JSON.stringify(errorBodySchema.parse(JSON.parse(text)).detail);
}

describe("a researcher's new dataset, checked on the dashboard", () => {
  it('reports its columns, missing values, outcome balance and pools, reading only the defined columns, storing nothing', async () => {
    const csv = loanCsv(4000);
    const before = await studyRowCount();
    const res = await preview({ definition: loanDefinition(await sha256Of(csv)), csv_base64: base64Of(csv) });
    expect(res.status, await res.clone().text()).toBe(200);
    const p = datasetPreviewSchema.parse(await res.json());
    expect(p.dataset).toBe(LOAN_ID);
    expect(p.csv).toEqual({ bytes: new TextEncoder().encode(csv).length, sha256: await sha256Of(csv), matches_definition: true });
    expect(p.rows).toEqual({ read: 4000, kept: 4000 });
    expect(p.source_columns.find((c) => c.name === 'applicant_name')).toMatchObject({ read_as: 'ignored', looks: 'text' });
    expect(p.source_columns.find((c) => c.name === 'income')).toMatchObject({ read_as: 'feature', looks: 'numeric' });
    expect(p.source_columns.find((c) => c.name === 'approved')).toMatchObject({ read_as: 'outcome', looks: 'text' });
    // Missing values as written (NA or empty) counted; codes, levels and categories as found.
    const rows = csv.trim().split('\n').slice(1);
    const incomeMissing = rows.filter((r) => /^A\d+,"[^"]*",(NA)?,/.test(r)).length;
    expect(p.columns.find((c) => c.name === 'income')).toMatchObject({ kind: 'numeric', missing: incomeMissing, unlabelled: [] });
    expect(incomeMissing).toBeGreaterThan(40);
    expect(p.columns.find((c) => c.name === 'region')).toMatchObject({ kind: 'categorical', distinct: 4, unlabelled: [], quartiles: null });
    // Quartiles as a percentile column's statistics take them: the sorted values at ⌊n·q⌋.
    const scores = rows.map((r) => r.split(',')[6]!).filter((v) => v !== '' && v !== 'NA').map(Number).sort((a, b) => a - b);
    expect(p.columns.find((c) => c.name === 'credit_score')!.quartiles).toEqual({ q1: scores[Math.floor(scores.length * 0.25)], median: scores[Math.floor(scores.length * 0.5)], q3: scores[Math.floor(scores.length * 0.75)] });
    expect(p.columns.find((c) => c.name === 'education')).toMatchObject({ kind: 'ordinal', distinct: 4 });
    const approved = rows.filter((r) => r.endsWith(',yes')).length;
    expect(p.outcome).toEqual({ positive: approved, negative: 4000 - approved, positive_share: approved / 4000 });
    // The held-out split exactly as the build draws it (stratified: each outcome's share within a row).
    expect(p.pools).toMatchObject({ needed_per_outcome: 201, can_build: true, short: [], options: [], proposal: null });
    expect(p.pools.held_out.positive + p.pools.held_out.negative).toBe(800);
    expect(Math.abs(p.pools.held_out.positive - approved * 0.2)).toBeLessThan(1);
    expect(p.understanding_sample.derived).toBe(false);
    expect(p.changes).toEqual([]);
    expect(p.build).toEqual({ definition_file: `ml-assets/datasets/${LOAN_ID}.json`, csv_file: 'loan_approval/applications.csv', sha256_to_set: null });
    expect(JSON.stringify(p)).not.toMatch(/Example|Sample|Placeholder|A1000\d\d/);
    expect(await studyRowCount()).toBe(before);
  });

  it('warns when another dataset has the same name in a language (a warning: the check still passes)', async () => {
    const csv = loanCsv(4000);
    const own = loanDefinition(await sha256Of(csv));
    const compas = datasetDefinitions.compas!;
    const named = { ...own, texts: { ja: { ...own.texts.ja, name: compas.texts.ja.name }, en: own.texts.en } };
    const p = datasetPreviewSchema.parse(await (await preview({ definition: named, csv_base64: base64Of(csv) })).json());
    expect(p.names_in_use).toEqual([{ dataset: 'compas', language: 'ja', name: compas.texts.ja.name }]);
    expect(p.pools.can_build).toBe(true);
    const plain = datasetPreviewSchema.parse(await (await preview({ definition: own, csv_base64: base64Of(csv) })).json());
    expect(plain.names_in_use).toEqual([]);
  });

  it("says when the file is not the one the definition names, and what to write instead", async () => {
    const csv = loanCsv(4000);
    const p = datasetPreviewSchema.parse(await (await preview({ definition: loanDefinition('0'.repeat(64)), csv_base64: base64Of(csv) })).json());
    expect(p.csv.matches_definition).toBe(false);
    expect(p.build.sha256_to_set).toBe(await sha256Of(csv));
  });

  it("runs a first check before the definition names its file's sha256 (left out, or the docs' placeholder), and reports the one to write in; adding still needs it", async () => {
    const csv = loanCsv(4000);
    const placeholder = loanDefinition("<the file's sha256>");
    const unnamed = structuredClone(placeholder) as { source: { files: Record<string, unknown>[] } };
    delete unnamed.source.files[0]!.sha256;
    for (const definition of [placeholder, unnamed]) {
      const res = await preview({ definition, csv_base64: base64Of(csv) });
      expect(res.status, await res.clone().text()).toBe(200);
      const p = datasetPreviewSchema.parse(await res.json());
      expect(p.csv.matches_definition).toBe(false);
      expect(p.build.sha256_to_set).toBe(await sha256Of(csv));
    }
    const added = await postJson('/api/admin/datasets', { definition: placeholder, csv_base64: base64Of(csv) }, { Cookie: cookie });
    expect(added.status).toBe(400);
    expect(await added.text()).toContain(await sha256Of(csv));
  });

  it("a small dataset fits on the first try: the check names the short outcomes, proposes the fewest main pools at the test share that fills them with the AI's expected accuracy, and its changes applied make it addable", async () => {
    const csv = loanCsv(569);
    // As a researcher first writes it: no sha256 yet, no understanding sample, the default pools.
    const first = structuredClone(loanDefinition('')) as Record<string, unknown> & { source: { files: Record<string, unknown>[] } };
    delete first.source.files[0]!.sha256;
    delete first.understandingSample;
    const res = await preview({ definition: first, csv_base64: base64Of(csv) });
    expect(res.status, await res.clone().text()).toBe(200);
    const p = datasetPreviewSchema.parse(await res.json());
    const approved = csv.trim().split('\n').filter((r) => r.endsWith(',yes')).length;
    expect(p.pools.can_build).toBe(false);
    // Both outcomes are short of the 201 each that 2 + 200 + 4 × 50 cases take; each is named by its value.
    expect(p.pools.short).toEqual([
      { outcome: 'positive', value: 'yes', held_out: p.pools.held_out.positive, needed: 201 },
      { outcome: 'negative', value: 'no', held_out: p.pools.held_out.negative, needed: 201 },
    ]);
    // One main pool needs (2 + 200 + 50) / 2 = 126 of each; the smaller outcome sets the test share.
    const proposal = p.pools.proposal!;
    expect(proposal).toMatchObject({ main_pools: 1, needed_per_outcome: 126 });
    expect(proposal.held_out.positive).toBeGreaterThanOrEqual(126);
    expect(proposal.held_out.negative).toBeGreaterThanOrEqual(126);
    expect(proposal.test_size).toBeGreaterThanOrEqual(126 / approved);
    expect(proposal.test_size).toBeLessThan(126 / approved + 0.02);
    expect(proposal.training_rows).toBe(569 - proposal.held_out.positive - proposal.held_out.negative);
    // What the AI reaches on the rows left to train on, beside the two baselines on the same folds.
    expect(p.accuracy).toMatchObject({ split: 'proposal', training_rows: proposal.training_rows, cv_folds: 5 });
    expect(p.accuracy!.ai_model).toBeGreaterThan(0.6);
    expect(p.accuracy!.ai_model).toBeLessThanOrEqual(1);
    // About 29 % are approved: always answering "no" is right as often as the others are.
    expect(p.accuracy!.majority).toBeCloseTo(1 - approved / 569, 1);
    expect(p.accuracy!.logistic_regression).toBeGreaterThan(p.accuracy!.majority);
    // Every option fills the pools; more main pools leave fewer rows to train on.
    expect(p.pools.options[0]).toEqual(proposal);
    for (let i = 1; i < p.pools.options.length; i++) expect(p.pools.options[i]!.training_rows).toBeLessThan(p.pools.options[i - 1]!.training_rows);
    // The derived understanding sample: columns of this task, the strongest first.
    expect(p.understanding_sample.derived).toBe(true);
    expect(p.understanding_sample.sample.features.a.feature).toBe('credit_score');
    expect(p.changes.map((c) => c.reason)).toEqual(['sha256', 'main_pools', 'test_share', 'understanding_sample']);

    // The one click: the changes applied, and nothing else edited.
    const applied = applyDefinitionChanges(first, p.changes);
    const again = datasetPreviewSchema.parse(await (await preview({ definition: applied, csv_base64: base64Of(csv) })).json());
    expect(again.pools).toMatchObject({ can_build: true, short: [], proposal: null, held_out: proposal.held_out });
    expect(again.csv.matches_definition).toBe(true);
    expect(again.changes).toEqual([]);
    expect(again.understanding_sample).toEqual({ derived: false, sample: p.understanding_sample.sample });
  });

  it('lists values without words and pools that cannot be filled', async () => {
    const csv = loanCsv(1500);
    const definition = loanDefinition(await sha256Of(csv)) as { columns: { name: string; values?: Record<string, unknown> }[] };
    delete definition.columns.find((c) => c.name === 'purpose')!.values!.business;
    const p = datasetPreviewSchema.parse(await (await preview({ definition, csv_base64: base64Of(csv) })).json());
    expect(p.columns.find((c) => c.name === 'purpose')!.unlabelled).toEqual(['business']);
    expect(p.pools.can_build).toBe(false);
  });

  it("refuses pools smaller than a phase of the study, in the check and the add, naming both numbers (they would strand every participant who gets the dataset)", async () => {
    const csv = loanCsv(4000);
    const definition = { ...loanDefinition(await sha256Of(csv)), pools: { seed: 2024, pre: 40, main: 20, mainPools: 2 } };
    const before = await studyRowCount();
    for (const res of [await preview({ definition, csv_base64: base64Of(csv) }), await postJson('/api/admin/datasets', { definition, csv_base64: base64Of(csv) }, { Cookie: cookie })]) {
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text).toContain('pools_smaller_than_study');
      expect(text).toContain('pools.pre is 40, but every participant judges 200 pre-experiment cases');
      expect(text).toContain('pools.main is 20, but every participant judges 50 main-experiment cases');
    }
    expect(await studyRowCount()).toBe(before);
  });

  it('refuses a broken definition or a CSV that breaks it with a 400 that names the column, row and rule', async () => {
    const csv = loanCsv(300);
    const bad = loanDefinition(await sha256Of(csv)) as { columns: Record<string, unknown>[] };
    bad.columns[3]!.format = 'stars';
    expect(await refusal(await preview({ definition: bad, csv_base64: base64Of(csv) }), 'invalid_definition')).toMatch(/columns\[3\] \(credit_score\)\.format/);

    const broken = csv.replace(/\n(A100005,"[^"]+",)(\d*|NA),/, '\n$1lots,');
    expect(await refusal(await preview({ definition: loanDefinition(await sha256Of(broken)), csv_base64: base64Of(broken) }), 'source_breaks_definition')).toContain(
      'loan_approval/applications.csv row 6, column income: \\"lots\\" is not a number',
    );
    const noOutcome = csv.replace(',approved\n', ',decision\n');
    expect(await refusal(await preview({ definition: loanDefinition(await sha256Of(noOutcome)), csv_base64: base64Of(noOutcome) }), 'source_breaks_definition')).toContain('no column \\"approved\\"');
    expect(await refusal(await preview({ definition: loanDefinition('0'.repeat(64)), csv_base64: 'not base64!' }), 'validation_failed')).toContain('csv_base64 is not base64');
  });

  it('answers only an administrator', async () => {
    const csv = loanCsv(300);
    const res = await preview({ definition: loanDefinition(await sha256Of(csv)), csv_base64: base64Of(csv) }, {});
    expect(res.status).toBe(401);
  });

  it("lists the study's datasets from their definitions", async () => {
    const res = await api('/api/admin/datasets', { headers: { Cookie: cookie } });
    const body = (await res.json()) as { datasets: { id: string; columns: number; enabled: boolean; name: { ja: string; en: string } }[] };
    expect(body.datasets.map((d) => d.id)).toEqual([...DATASET_TYPES]);
    expect(body.datasets.find((d) => d.id === 'compas')).toMatchObject({ columns: 8, enabled: true, name: { en: 'COMPAS (recidivism)' } });
  });
});
