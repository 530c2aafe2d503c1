/**
 * Every research figure of the dashboard, recomputed outside the platform: a study of several
 * conditions is generated through the registration tools, its all-data export downloaded, and the
 * export's own analysis/reproduce.py run on it with Debian's pandas and statsmodels. Its figures
 * must equal the API's: every estimate, interval and n to 1e-9, and the participant-clustered
 * alpha models (statsmodels' Logit(...).fit(cov_type='cluster')) to 1e-6.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { PYTHON_PATH } from '../../scripts/lib/python-stats';
import { completePostSurvey } from '../helpers/post-survey-answers';
import { DESIGN } from './design';
import { CONDITIONS_ADMIN_PASSWORD } from './global-setup';

type Json = Record<string, unknown>;
let cookie = '';
const headers = () => ({ 'CF-Connecting-IP': '203.0.113.42', Cookie: cookie });
async function asAdmin(pathname: string, method = 'GET'): Promise<Response> {
  const res = await fetch(`${inject('baseUrl')}${pathname}`, { method, headers: headers() });
  expect(res.status, `${method} ${pathname}: ${res.status}`).toBe(200);
  return res;
}

/** Numbers equal to `tolerance` (relative above 1), everything else exactly, reported by path. */
function expectSame(actual: unknown, expected: unknown, where: string, tolerance: number): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const scale = Math.max(1, Math.abs(expected));
    expect(Math.abs(actual - expected) / scale, `${where}: ${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance);
    return;
  }
  if (expected === null || typeof expected !== 'object') {
    expect(actual, where).toEqual(expected);
    return;
  }
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual) && actual.length, `${where} length`).toBe(expected.length);
    expected.forEach((e, i) => expectSame((actual as unknown[])[i], e, `${where}[${i}]`, tolerance));
    return;
  }
  for (const [key, value] of Object.entries(expected)) expectSame((actual as Json)[key], value, `${where}.${key}`, tolerance);
}

/** Groups keyed by what identifies them, so the comparison does not depend on their order. */
const keyed = (groups: Json[], key: (g: Json) => string) => Object.fromEntries(groups.map((g) => [key(g), g]));
const GROUP_FIELDS = ['trials', 'participants', 'fallback_trials', 'fallback_reasons', 'metrics', 'calibration', 'bars_lean_with_ai'] as const;
const pick = (g: Json) => Object.fromEntries(GROUP_FIELDS.map((f) => [f, g[f]]));

let zipFile = '';
let tsvZipFile = '';

beforeAll(async () => {
  const login = await fetch(`${inject('baseUrl')}/api/admin/login`, {
    method: 'POST',
    headers: { 'CF-Connecting-IP': '203.0.113.42', 'Content-Type': 'application/json' },
    body: JSON.stringify({ password: CONDITIONS_ADMIN_PASSWORD }),
  });
  expect(login.status).toBe(200);
  cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  // Five participants per condition at different accuracies, every condition of the design (enough
  // that a bootstrap percentile is not simply the smallest or largest value).
  for (const [c, condition] of DESIGN.entries()) {
    for (const [k, accuracy] of [0.5, 0.6, 0.7, 0.8, 0.9].entries()) {
      const name = `test_rep_${c}_${k}`;
      await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&accuracy_rate=${accuracy}`, 'POST');
      await asAdmin(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=50&accuracy_rate=${accuracy}&condition=${condition.name}`, 'POST');
      // Some finish the study, so the completers-only figures differ from everyone's.
      if (k < 3 && (condition.name === 'human_aligned' || condition.name === 'explanation_with_case')) {
        const done = await fetch(`${inject('baseUrl')}/api/post-survey/`, {
          method: 'POST',
          headers: { ...headers(), 'Content-Type': 'application/json' },
          body: JSON.stringify({ session_id: name, ...completePostSurvey() }),
        });
        expect(done.status, await done.clone().text()).toBe(201);
      }
    }
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'xdl-reproduce-'));
  zipFile = path.join(dir, 'all-data.zip');
  writeFileSync(zipFile, new Uint8Array(await (await asAdmin('/api/enhanced-export/all-data?format=csv')).arrayBuffer()));
  tsvZipFile = path.join(dir, 'all-data-tsv.zip');
  writeFileSync(tsvZipFile, new Uint8Array(await (await asAdmin('/api/enhanced-export/all-data?format=tsv')).arrayBuffer()));
}, 600_000);

/** The export's own script, run as a researcher would, on the downloaded zip. */
function reproduce(...flags: string[]): Json {
  return reproduceFrom(zipFile, ...flags);
}
function reproduceFrom(zip: string, ...flags: string[]): Json {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'xdl-script-'));
  const script = path.join(dir, 'reproduce.py');
  writeFileSync(script, strFromU8(unzipSync(new Uint8Array(readFileSync(zip)))['analysis/reproduce.py']!));
  return JSON.parse(execFileSync(PYTHON_PATH, [script, zip, '--json', ...flags], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as Json;
}

describe('analysis/reproduce.py', () => {
  for (const [excludeFlagged, completedOnly] of [
    [false, false],
    [true, false],
    [false, true],
  ]) {
    const variant = excludeFlagged ? ' with flagged participants left out' : completedOnly ? ' counting only those who finished the study' : '';
    it(`recomputes every reliance figure of the dashboard${variant}`, async () => {
      const api = (await (await asAdmin(`/api/admin/analytics/reliance?include_synthetic=true&exclude_flagged=${excludeFlagged}&completed_only=${completedOnly}`)).json()) as Json;
      const script = reproduce('--include-synthetic', ...(excludeFlagged ? ['--exclude-flagged'] : []), ...(completedOnly ? ['--completed-only'] : []));
      expect(script.trials).toBe(api.trials);
      expect(api.completed_only).toBe(completedOnly);
      expect(script.overall === null).toBe(api.overall === null);
      const groupKey = (g: Json) => `${g.condition}|${g.explanation_kind ?? ''}|${g.alignment_alpha ?? ''}|${g.dataset_type ?? ''}`;
      for (const table of ['by_alpha', 'by_condition', 'by_dataset'] as const) {
        const expected = keyed(api[table] as Json[], groupKey);
        const actual = keyed(script[table] as Json[], groupKey);
        expect(Object.keys(actual).sort(), table).toEqual(Object.keys(expected).sort());
        for (const [key, group] of Object.entries(expected)) expectSame(pick(actual[key]!), pick(group), `${table}[${key}]`, 1e-9);
      }
      if (!completedOnly) expect((api.by_alpha as Json[]).length).toBeGreaterThan(DESIGN.length);
      const differences = api.condition_differences as Json[];
      expect(differences.length).toBeGreaterThan(0);
      // Every group draws its own bootstrap stream: two groups of one size never share their intervals' resamples.
      expectSame(
        keyed(script.condition_differences as Json[], (d) => `${d.metric}|${d.condition_a}|${d.condition_b}`),
        keyed(differences, (d) => `${d.metric}|${d.condition_a}|${d.condition_b}`),
        'condition_differences',
        1e-9,
      );
      // The alpha models: the Worker's Newton–Raphson and sandwich against statsmodels itself.
      const models = api.alpha_models as Json[];
      expect(models.filter((m) => !('refused' in m)).length).toBeGreaterThanOrEqual(completedOnly ? 1 : 2);
      // Five or fewer participants a condition: the small-cluster t reference, and the tab's warning.
      for (const m of models.filter((m) => !('refused' in m))) expect(m).toMatchObject({ few_clusters: true, df: (m.participants as number) - 1 });
      const fitted = keyed(script.alpha_models as Json[], (m) => `${m.condition}|${m.outcome}`);
      for (const model of models) {
        const { iterations: _iterations, ...estimates } = model;
        expectSame(fitted[`${model.condition}|${model.outcome}`], estimates, `alpha_models[${model.condition}|${model.outcome}]`, 1e-6);
      }
    });
  }

  it('recomputes the statistics endpoint’s change rate and distribution, overall and per condition, for everyone and for completers only', async () => {
    for (const completedOnly of [false, true]) {
      const api = (await (await asAdmin(`/api/experiments/statistics?include_synthetic=true&completed_only=${completedOnly}`)).json()) as Json;
      const script = reproduce('--include-synthetic', ...(completedOnly ? ['--completed-only'] : [])).statistics as Json;
      expectSame(script.main_experiment, api.main_experiment, 'main_experiment', 1e-9);
      expectSame(keyed(script.main_by_condition as Json[], (c) => String(c.condition)), keyed(api.main_by_condition as Json[], (c) => String(c.condition)), 'main_by_condition', 1e-9);
    }
  });

  it('reads the TSV export as it reads the CSV one', () => {
    expect(reproduceFrom(tsvZipFile, '--include-synthetic')).toEqual(reproduce('--include-synthetic'));
  });

  it('prints a readable report by default', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'xdl-script-'));
    const files = unzipSync(new Uint8Array(readFileSync(zipFile)));
    // Unpacked as a researcher would: the script finds the CSVs beside its own folder.
    for (const [name, bytes] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), bytes);
    }
    const out = execFileSync(PYTHON_PATH, [path.join(dir, 'analysis', 'reproduce.py'), '--include-synthetic'], { encoding: 'utf8', cwd: os.tmpdir() });
    expect(out).toContain('== By condition (');
    expect(out).toContain('Alpha effect');
    for (const c of DESIGN) expect(out).toContain(c.name);
  });
});
