/**
 * Issue #45: a trial keeps what it alone knows. The case shown is read from `cases` and the bars
 * from the trial's serve, stored once and compactly; migration 0021 converts rows stored the old
 * way (every answer with its case's copy, every trial with its serve's bars, every serve's bars as
 * whole objects), and every export is the same, byte for byte, before and after it.
 */
import { env } from 'cloudflare:workers';
import { strFromU8, unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../worker/db/client';
import { barsToText, modelBarsToText, unpackDoubles } from '../../worker/db/feature-bars';
import { responsesPage } from '../../worker/db/queries/admin';
import { adminCookie, api } from '../helpers/api';
import { storedServes } from '../helpers/served-bars';
import { seedCompasStudy } from '../helpers/study-factories';

let cookie = '';
beforeAll(async () => {
  await seedCompasStudy();
  cookie = await adminCookie();
});

const asAdmin = (path: string, init: RequestInit = {}) => api(path, { ...init, headers: { ...(init.headers as Record<string, string>), Cookie: cookie } });
const rows = async <T = Record<string, unknown>>(sql: string, ...binds: unknown[]) => (await env.DB.prepare(sql).bind(...binds).all<T>()).results;
/** A migration's statements (the one whose file name starts with `prefix`), without their leading comments. */
const migrationQueries = (prefix: string) =>
  env.TEST_MIGRATIONS.find((m) => m.name.startsWith(prefix))!.queries.map((q) => q.replace(/^(\s*--[^\n]*\n)+/, '').trim());

/** The session of the participant named `name` (one each here). */
const sessionIdOf = async (name: string) =>
  (await rows<{ session_id: string }>('select s.session_id from sessions s join participants p on p.id = s.participant_id where p.participant_code = ?', name))[0]!.session_id;

/** A participant with 200 pre-experiment answers and 50 main cases, each from a serve, as the registration tools store them. */
async function finishedParticipant(): Promise<string> {
  const name = `test_${crypto.randomUUID().slice(0, 8)}`;
  expect((await asAdmin(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas`, { method: 'POST' })).status).toBe(200);
  expect((await asAdmin(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=50`, { method: 'POST' })).status).toBe(200);
  return name;
}

/** Every CSV of the all-data export of one participant, by file name. */
async function allData(name: string): Promise<Record<string, string>> {
  const res = await asAdmin(`/api/enhanced-export/all-data?user_name=${name}`);
  expect(res.status).toBe(200);
  const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
  return Object.fromEntries(
    Object.entries(files)
      .filter(([file]) => file.endsWith('.csv'))
      .map(([file, bytes]) => [file, strFromU8(bytes)]),
  );
}

/** The rows of a participant as the code before issue #45 stored them: whole copies of the case and of the serve's bars (in the serve's three columns, before migration 0024 packed them). */
async function storeTheOldWay(name: string): Promise<void> {
  const sessionId = await sessionIdOf(name);
  const copyCase = (table: string) =>
    env.DB.prepare(`update ${table} set case_data = (select c.features from cases c where c.case_id = ${table}.case_id) where session_id = ?`).bind(sessionId);
  const whole = (bars: unknown[]) => JSON.stringify(bars);
  const serves = (await storedServes({ sessionId })).map((s) => ({ id: s.id, ...s.bars! }));
  await env.DB.batch([
    copyCase('pre_experiment_responses'),
    copyCase('main_experiment_responses'),
    ...serves.flatMap((s) => [
      env.DB.prepare('update served_explanations set bars = null, ai_feature_importance = ?, user_feature_importance = ?, shown_feature_importance = ? where id = ?').bind(whole(s.ai), whole(s.user), whole(s.shown), s.id),
      env.DB.prepare('update main_experiment_responses set ai_feature_importance = ?, user_feature_importance = ?, shown_feature_importance = ? where served_explanation_id = ?').bind(
        whole(s.ai),
        whole(s.user),
        whole(s.shown),
        s.id,
      ),
    ]),
  ]);
}

/** Migration 0021's conversion of stored rows (its statements after the rebuild of the pre-experiment table). */
async function convert(): Promise<void> {
  const updates = migrationQueries('0021_').filter((q) => q.startsWith('UPDATE'));
  expect(updates.length).toBe(6);
  for (const q of updates) await env.DB.prepare(q).run();
}

describe('the trial record, kept once', () => {
  it('stores no copy of the case or of the bars, and keeps each serve\'s bars compact', async () => {
    const name = await finishedParticipant();
    const copies = await rows<{ n: number }>(
      `select (select count(*) from pre_experiment_responses r join sessions s on s.session_id = r.session_id join participants p on p.id = s.participant_id where p.participant_code = ?1 and r.case_data is not null)
            + (select count(*) from main_experiment_responses r join participants p on p.id = r.participant_id where p.participant_code = ?1 and (r.case_data is not null or r.shown_feature_importance is not null or r.ai_feature_importance is not null)) as n`,
      name,
    );
    expect(copies[0]!.n).toBe(0);
    const serves = await rows<{ bars: string; alpha: number; old: number }>(
      `select e.bars, e.alignment_alpha as alpha, (e.ai_feature_importance is not null or e.user_feature_importance is not null or e.shown_feature_importance is not null) as old
         from served_explanations e join sessions s on s.session_id = e.session_id join participants p on p.id = s.participant_id where p.participant_code = ?`,
      name,
    );
    expect(serves.length).toBe(50);
    expect(serves.every((s) => s.old === 0)).toBe(true);
    // Packed: the id of the feature names' list (kept once for every serve), the AI's raw values (its
    // shares made again from them), and the bars on screen as the alpha mix; read back as the four
    // fields the Worker served.
    const packed = JSON.parse(serves[0]!.bars) as { f: number; a: string; u: string; s: unknown; m?: number };
    expect(new Set(serves.map((s) => (JSON.parse(s.bars) as { f: unknown }).f))).toEqual(new Set([packed.f]));
    const [list] = await rows<{ names: string }>('select names from feature_lists where id = ?', packed.f);
    expect(JSON.parse(list!.names)).toHaveLength(8);
    expect(unpackDoubles(packed.a)).toHaveLength(8);
    expect(serves.some((s) => (JSON.parse(s.bars) as { s: unknown }).s === 'mix')).toBe(true);
    const [read] = await storedServes({ id: (await rows<{ id: number }>('select id from served_explanations where bars = ?', serves[0]!.bars))[0]!.id });
    expect(read!.bars!.ai.map((b) => (b as { feature: string }).feature)).toEqual(JSON.parse(list!.names));
    const ai = read!.bars!.ai as { importance: number; abs_importance: number }[];
    expect(ai[0]!.abs_importance).toBe(Math.abs(ai[0]!.importance));
    expect(ai.reduce((sum, b) => sum + b.abs_importance, 0)).toBeCloseTo(1, 12);
  });

  it("shows the dashboard the case and the bars of every answer and trial, read from where they are kept", async () => {
    const name = await finishedParticipant();
    const listed = (await (await asAdmin(`/api/admin/responses?user_name=${name}&limit=1000`)).json()) as { responses: { id: number; experiment_type: string; case_id: string; case_data_json: string }[] };
    expect(listed.responses).toHaveLength(250);
    const features = new Map(
      (await rows<{ case_id: string; features: string }>('select case_id, features from cases')).map((c) => [c.case_id, JSON.parse(c.features) as unknown]),
    );
    for (const r of listed.responses) expect(JSON.parse(r.case_data_json)).toEqual(features.get(r.case_id));
    const trial = listed.responses.find((r) => r.experiment_type === 'main_experiment')!;
    const detail = (await (await asAdmin(`/api/admin/responses/main/${trial.id}`)).json()) as { caseData: unknown; servedExplanationId: number; shownFeatureImportance: unknown[]; aiFeatureImportance: unknown[] };
    expect(detail.caseData).toEqual(features.get(trial.case_id));
    const [serve] = await storedServes({ id: detail.servedExplanationId });
    expect(detail.shownFeatureImportance).toEqual(serve!.bars!.shown);
    expect(detail.aiFeatureImportance).toEqual(serve!.bars!.ai);
    expect(detail.shownFeatureImportance.length).toBe(8);
  });

  it('exports the same bytes from rows stored the old way, before and after migration 0021 converts them', async () => {
    const name = await finishedParticipant();
    const now = await allData(name);
    await storeTheOldWay(name);
    const before = await allData(name);
    // Read the old way, the record is the same as stored the new way.
    expect(before).toEqual(now);
    const bytesBefore = await rows<{ n: number }>(
      `select sum(length(coalesce(r.case_data, '')) + length(coalesce(r.ai_feature_importance, '')) + length(coalesce(r.shown_feature_importance, ''))) as n
         from main_experiment_responses r join participants p on p.id = r.participant_id where p.participant_code = ?`,
      name,
    );
    expect(bytesBefore[0]!.n).toBeGreaterThan(10_000);

    await convert();
    const after = await allData(name);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    for (const file of Object.keys(before)) expect(after[file], file).toBe(before[file]);
    const left = await rows<{ n: number }>(
      `select count(*) as n from main_experiment_responses r join participants p on p.id = r.participant_id
        where p.participant_code = ? and (r.case_data is not null or r.ai_feature_importance is not null or r.user_feature_importance is not null or r.shown_feature_importance is not null)`,
      name,
    );
    expect(left[0]!.n).toBe(0);
  });

  it('keeps the own bars and case of a trial stored before serves were recorded, and exports it unchanged', async () => {
    const name = await finishedParticipant();
    await storeTheOldWay(name);
    // One trial as a page sent it before the server recorded serves: no serve named, its own bars
    // (keys in the page's order) and a case copy that differs from the case's row.
    const [trial] = await rows<{ id: number; served: number; shown: string }>(
      `select r.id, r.served_explanation_id as served, r.shown_feature_importance as shown from main_experiment_responses r
         join participants p on p.id = r.participant_id where p.participant_code = ? order by r.id limit 1`,
      name,
    );
    const pageBars = JSON.stringify(
      (JSON.parse(trial!.shown) as { feature: string; importance: number; abs_importance: number; raw_shap: number }[]).map((b) => ({ feature: b.feature, raw_shap: b.raw_shap, importance: b.importance, abs_importance: b.abs_importance })),
    );
    await env.DB.prepare(`update main_experiment_responses set served_explanation_id = null, shown_feature_importance = ?, case_data = '{"priors_count":99}' where id = ?`).bind(pageBars, trial!.id).run();
    const before = await allData(name);
    await convert();
    const after = await allData(name);
    for (const file of Object.keys(before)) expect(after[file], file).toBe(before[file]);
    const [kept] = await rows<{ shown: string; case_data: string }>('select shown_feature_importance as shown, case_data from main_experiment_responses where id = ?', trial!.id);
    expect(kept).toEqual({ shown: pageBars, case_data: '{"priors_count":99}' });
  });

  it('exports the same bytes from serves packed in one text as from serves stored before migration 0024, in their three columns, and packs them in under 40% of the bytes', async () => {
    const name = await finishedParticipant();
    const packed = await allData(name);
    const sessionId = await sessionIdOf(name);
    const serves = await storedServes({ sessionId: sessionId });
    const packedBytes = serves.reduce((n, s) => n + s.stored.length, 0);
    // As the Worker stored serves from migration 0021 until 0024: each list in its own column and form.
    const before = serves.map(({ id, bars }) => ({ id, ai: modelBarsToText(bars!.ai), user: modelBarsToText(bars!.user), shown: barsToText(bars!.shown) }));
    await env.DB.batch(
      before.map((s) =>
        env.DB.prepare('update served_explanations set bars = null, ai_feature_importance = ?, user_feature_importance = ?, shown_feature_importance = ? where id = ?').bind(s.ai, s.user, s.shown, s.id),
      ),
    );
    const columnsBytes = before.reduce((n, s) => n + s.ai.length + s.user.length + s.shown.length, 0);
    const unpacked = await allData(name);
    expect(Object.keys(unpacked).sort()).toEqual(Object.keys(packed).sort());
    for (const file of Object.keys(packed)) expect(unpacked[file], file).toBe(packed[file]);
    expect(packedBytes).toBeLessThan(columnsBytes * 0.4);
  });

  it("exports the same bytes after migration 0025 stores the case sets' phase short, and reads it by its name", async () => {
    const name = await finishedParticipant();
    const sessionId = await sessionIdOf(name);
    const stored = await rows<{ phase: string; n: number }>('select phase, count(*) as n from case_set_items where session_id = ? group by phase order by phase', sessionId);
    expect(stored).toEqual([
      { phase: 'main', n: 50 },
      { phase: 'pre', n: 200 },
    ]);
    const now = await allData(name);
    // As stored before 0025, then converted by its statement.
    await env.DB.prepare("update case_set_items set phase = case phase when 'pre' then 'pre_experiment' else 'main_experiment' end where session_id = ?").bind(sessionId).run();
    const updates = migrationQueries('0025_').filter((q) => q.startsWith('UPDATE'));
    expect(updates).toHaveLength(1);
    await env.DB.prepare(updates[0]!).run();
    expect(await rows('select phase, count(*) as n from case_set_items where session_id = ? group by phase order by phase', sessionId)).toEqual(stored);
    const after = await allData(name);
    for (const file of Object.keys(now)) expect(after[file], file).toBe(now[file]);
    expect(after['case-data.csv']).toContain(',pre_experiment,');
    expect(after['case-data.csv']).toContain(',main_experiment,');
  });

  it('exports the same bytes after migration 0027 makes the serve key a virtual column, and a serve again still counts on its row', async () => {
    const name = await finishedParticipant();
    const sessionId = await sessionIdOf(name);
    const now = await allData(name);
    // As stored before 0027 (the table 0024 made), each key in the row as the Worker joined it.
    const create = migrationQueries('0024_').find((q) => q.startsWith('CREATE TABLE `__new_served_explanations`'))!;
    await env.DB.batch([
      env.DB.prepare(create.replace('`__new_served_explanations`', '`served_before`')),
      env.DB.prepare(
        `insert into served_before select id, session_id, case_id, kind, ai_only_reason, ai_model_identifier, user_model_identifier, alignment_alpha, ai_prediction, ai_probability,
           ai_base_probability, user_model_prediction, user_model_probability, bars, ai_feature_importance, user_feature_importance, shown_feature_importance,
           kind || '|' || ai_model_identifier || '|' || coalesce(user_model_identifier, '-') || '|' || coalesce(alignment_alpha, '-') || '|' || coalesce(ai_only_reason, '-'),
           serve_count, first_served_at, last_served_at from served_explanations`,
      ),
      env.DB.prepare('drop table served_explanations'),
      env.DB.prepare('alter table served_before rename to served_explanations'),
      env.DB.prepare('create unique index served_explanations_serve_uq on served_explanations (session_id, case_id, serve_key)'),
    ]);
    const hidden = async () => (await rows<{ name: string; hidden: number }>("select name, hidden from pragma_table_xinfo('served_explanations') where name = 'serve_key'"))[0]!.hidden;
    expect(await hidden()).toBe(0);
    // This participant's serves: other test files write and delete serves of their own meanwhile.
    const ofSession = () => rows<{ id: number }>('select id from served_explanations where session_id = ? order by id', sessionId);
    const serves = await ofSession();
    // In one batch, with 0031 that writes the key's alpha in all 17 digits and the serve's columns of
    // 0033 and 0034 (with its statement that fills in the accuracy stated): other test files use the table meanwhile.
    const laterColumns = [...migrationQueries('0033_'), ...migrationQueries('0034_')].filter((q) => q.includes('`served_explanations`'));
    await env.DB.batch([...migrationQueries('0027_'), ...migrationQueries('0031_'), ...laterColumns].map((q) => env.DB.prepare(q)));
    // 2: a virtual generated column.
    expect(await hidden()).toBe(2);
    expect(await ofSession()).toEqual(serves);
    const after = await allData(name);
    for (const file of Object.keys(now)) expect(after[file], file).toBe(now[file]);

    // The same serve again counts on its row; one whose alpha differs in the last bit is its own,
    // at alpha 1 too (where 16 digits, printf's '%.17g', write both as 1).
    const [one] = await rows<{ id: number; alignment_alpha: number }>('select id, alignment_alpha from served_explanations where session_id = ? and alignment_alpha is not null order by alignment_alpha desc, id limit 1', sessionId);
    expect(one!.alignment_alpha).toBe(1);
    const again = (alpha: string) =>
      env.DB.prepare(
        `insert into served_explanations (session_id, case_id, kind, ai_only_reason, ai_model_identifier, user_model_identifier, alignment_alpha, ai_prediction, ai_probability, ai_base_probability, bars, first_served_at, last_served_at)
         select session_id, case_id, kind, ai_only_reason, ai_model_identifier, user_model_identifier, ${alpha}, ai_prediction, ai_probability, ai_base_probability, bars, first_served_at, last_served_at
         from served_explanations where id = ?
         on conflict (session_id, case_id, serve_key) do update set serve_count = serve_count + 1`,
      ).bind(one!.id).run();
    await again('alignment_alpha');
    expect(await rows('select serve_count from served_explanations where id = ?', one!.id)).toEqual([{ serve_count: 2 }]);
    expect((await again(`alignment_alpha + ${Number.EPSILON}`)).meta.changes).toBe(1);
    expect(await ofSession()).toHaveLength(serves.length + 1);
  });

  it('exports the same bytes after migration 0026 leaves the case sets one index and no time of their own', async () => {
    const name = await finishedParticipant();
    const now = await allData(name);
    const indexes = () => rows<{ name: string }>("select name from pragma_index_list('case_set_items') order by name");
    expect(await indexes()).toEqual([{ name: 'sqlite_autoindex_case_set_items_1' }]);
    // As stored before 0026, then converted by its statements.
    await env.DB.prepare("alter table case_set_items add column created_at text not null default '2026-01-01T00:00:00.000Z'").run();
    await env.DB.prepare('create unique index case_set_items_case_uq on case_set_items (session_id, phase, case_id)').run();
    const statements = migrationQueries('0026_');
    expect(statements).toHaveLength(2);
    for (const q of statements) await env.DB.prepare(q).run();
    expect(await indexes()).toEqual([{ name: 'sqlite_autoindex_case_set_items_1' }]);
    expect((await rows<{ name: string }>("select name from pragma_table_info('case_set_items')")).map((c) => c.name)).toEqual([
      'session_id',
      'phase',
      'position',
      'case_id',
      'alignment_alpha',
    ]);
    const after = await allData(name);
    for (const file of Object.keys(now)) expect(after[file], file).toBe(now[file]);
  });

  it('exports the same bytes after migration 0028 keeps each list of feature names once, each serve naming its list by id', async () => {
    const name = await finishedParticipant();
    const sessionId = await sessionIdOf(name);
    // As stored before 0028: every serve with its names in full, here a list no serve named yet.
    const serves = await storedServes({ sessionId });
    expect(serves).toHaveLength(50);
    const renamed = (whole: string) => {
      const packed = JSON.parse(whole) as { f: string[] };
      return JSON.stringify({ ...packed, f: packed.f.map((feature) => `${feature}_before_0028`) });
    };
    await env.DB.batch(serves.map((s) => env.DB.prepare('update served_explanations set bars = ? where id = ?').bind(renamed(s.whole), s.id)));
    const lists = async () => (await rows<{ n: number }>('select count(*) as n from feature_lists'))[0]!.n;
    const listsBefore = await lists();
    const before = await allData(name);
    expect(before['served-explanations.csv']).toContain('_before_0028');

    const statements = migrationQueries('0028_').filter((q) => /^(INSERT|UPDATE)/.test(q));
    expect(statements).toHaveLength(2);
    for (const q of statements) await env.DB.prepare(q).run();
    expect(await lists()).toBe(listsBefore + 1);
    const converted = await storedServes({ sessionId });
    const ids = new Set(converted.map((s) => (JSON.parse(s.stored) as { f: unknown }).f));
    expect(ids.size).toBe(1);
    expect(typeof [...ids][0]).toBe('number');
    expect(converted.reduce((n, s) => n + s.stored.length, 0)).toBeLessThan(serves.reduce((n, s) => n + renamed(s.whole).length, 0) * 0.7);
    const after = await allData(name);
    for (const file of Object.keys(before)) expect(after[file], file).toBe(before[file]);
  });

  it('exports the same bytes after migration 0029 keeps the case sets in their primary key alone, without rowid', async () => {
    const name = await finishedParticipant();
    const now = await allData(name);
    const withoutRowid = async () => (await rows<{ wr: number }>("select wr from pragma_table_list where name = 'case_set_items'"))[0]!.wr;
    const all = () => rows('select * from case_set_items order by session_id, phase, position');
    expect(await withoutRowid()).toBe(1);
    // As stored before 0029: a rowid table beside its primary key's index.
    await env.DB.batch([
      env.DB.prepare(
        'create table case_sets_before (session_id text not null, phase text not null, position integer not null, case_id text not null, alignment_alpha real, primary key (session_id, phase, position))',
      ),
      env.DB.prepare('insert into case_sets_before select * from case_set_items'),
      env.DB.prepare('drop table case_set_items'),
      env.DB.prepare('alter table case_sets_before rename to case_set_items'),
    ]);
    expect(await withoutRowid()).toBe(0);
    const stored = await all();
    expect(stored.length).toBeGreaterThanOrEqual(250);
    // In one batch: other test files use the table meanwhile.
    await env.DB.batch(migrationQueries('0029_').map((q) => env.DB.prepare(q)));
    expect(await withoutRowid()).toBe(1);
    expect(await all()).toEqual(stored);
    const after = await allData(name);
    for (const file of Object.keys(now)) expect(after[file], file).toBe(now[file]);
  });

  it("counts the answers of the last seven days and of today through migration 0030's index on the answers' Julian day, to the millisecond", async () => {
    const name = await finishedParticipant();
    const sessionId = await sessionIdOf(name);
    const stats = async () => (await (await asAdmin('/api/admin/stats?include_synthetic=true')).json()) as { responses_today: number; responses_this_week: number };
    const before = await stats();
    // 80 of this participant's answers just inside the seven days, 120 just outside them.
    const weekAgo = Date.now() - 7 * 24 * 3600 * 1000;
    await env.DB.batch([
      env.DB.prepare('update pre_experiment_responses set created_at = ? where session_id = ? and case_number <= 80').bind(new Date(weekAgo + 60_000).toISOString(), sessionId),
      env.DB.prepare('update pre_experiment_responses set created_at = ? where session_id = ? and case_number > 80').bind(new Date(weekAgo - 1).toISOString(), sessionId),
    ]);
    const after = await stats();
    // Other test files add and delete answers of the moment meanwhile, counted both today and this
    // week: the 80 still inside the seven days are what tells the two drops apart.
    expect(before.responses_today - after.responses_today - (before.responses_this_week - after.responses_this_week)).toBe(80);
    // The count reads the index, not the table.
    const plan = await rows<{ detail: string }>(
      "explain query plan select count(*) from pre_experiment_responses where julianday(pre_experiment_responses.created_at) >= julianday('2026-01-01T00:00:00.000Z')",
    );
    expect(plan.map((p) => p.detail).join('; ')).toContain('USING COVERING INDEX pre_responses_created_idx');
    // The dashboard's lists of answers and trials, newest first, read down the time indexes: no sort of every row.
    const db = createDb(env.DB);
    for (const [filter, indexes] of [
      [{}, ['pre_responses_created_idx', 'main_responses_created_idx']],
      [{ experimentType: 'pre_experiment' }, ['pre_responses_created_idx']],
      [{ experimentType: 'main_experiment' }, ['main_responses_created_idx']],
    ] as const) {
      const query = responsesPage(db, { limit: 50, offset: 0 }, filter).toSQL();
      const steps = (await rows<{ detail: string }>(`explain query plan ${query.sql}`, ...query.params)).map((p) => p.detail).join('; ');
      for (const index of indexes) expect(steps, JSON.stringify(filter)).toContain(`USING INDEX ${index}`);
      expect(steps, JSON.stringify(filter)).not.toContain('TEMP B-TREE');
    }
    const listed = (await (await asAdmin(`/api/admin/responses?user_name=${name}&limit=1000`)).json()) as { responses: { created_at: string }[] };
    const times = listed.responses.map((r) => r.created_at);
    expect(times).toEqual([...times].sort().reverse());
    // Julian days order stored times as their text does, to the millisecond.
    const [order] = await rows<{ earlier: number; same: number }>(
      "select julianday('2026-11-28T23:59:59.999Z') < julianday('2026-11-29T00:00:00.000Z') as earlier, julianday('2026-11-29T00:00:00.001Z') > julianday('2026-11-29T00:00:00.000Z') as same",
    );
    expect(order).toEqual({ earlier: 1, same: 1 });
  });
});
