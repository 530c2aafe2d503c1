/**
 * Issue #45, item 3: the all-data export and the daily backup written in steps. A job's steps each
 * read some pages and append them to one zip in R2 (multipart parts plus a carry between steps);
 * a step that fails anywhere commits nothing and its retry goes on from the last commit, so the
 * zip is the same, byte for byte, as one written in a single go: no row lost, none twice. The
 * export Workflow runs the steps; a failed job resumes from its last step.
 */
import { env } from 'cloudflare:workers';
import { introspectWorkflowInstance } from 'cloudflare:test';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../worker/db/client';
import { exportJobsResponseSchema, exportJobViewSchema } from '../../worker/schemas/admin';
import { jobParts, startAllDataExport } from '../../worker/services/exports/export';
import {
  EXPORT_LEASE_SECONDS,
  EXPORT_STALLED_MINUTES,
  ExportJobSuperseded,
  exportJobById,
  noteFailedStep,
  runExportStep,
  type ExportCursor,
  type ExportJob,
} from '../../worker/services/exports/stepwise';
import { adminCookie, api, postJson } from '../helpers/api';
import { consentedParticipant, seedCompasStudy } from '../helpers/study-factories';

let cookie = '';
const db = createDb(env.DB);
const asAdmin = (path: string, init: RequestInit = {}) => api(path, { ...init, headers: { ...(init.headers as Record<string, string>), Cookie: cookie } });
const postAsAdmin = (path: string, body: unknown) => postJson(path, body, { Cookie: cookie });

/**
 * Answers stored straight into D1 for volume: each names a case id of its own (one answer per case
 * and session), with a long reason of random letters that deflate cannot shrink much.
 */
async function storeAnswers(participantCode: string, count: number) {
  const [who] = (
    await env.DB.prepare('select p.id, s.session_id from participants p join sessions s on s.participant_id = p.id where p.participant_code = ?').bind(participantCode).all<{ id: number; session_id: string }>()
  ).results;
  const [c] = (await env.DB.prepare("select case_id, ground_truth from cases where dataset_type = 'compas' and pool = 'pre_experiment' limit 1").all<{ case_id: string; ground_truth: number }>()).results;
  const insert = env.DB.prepare(
    `insert into pre_experiment_responses (participant_id, session_id, dataset_type, case_id, case_number, prediction, confidence, response_time_ms, reasoning, ground_truth, created_at)
     values (?, ?, 'compas', ?, ?, ?, 3, 2000, ?, ?, ?)`,
  );
  const letters = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(750))));
  for (let i = 0; i < count; i += 500) {
    const batch = Array.from({ length: Math.min(500, count - i) }, (_, k) =>
      insert.bind(who!.id, who!.session_id, `${c!.case_id}-volume-${i + k}`, i + k + 1, (i + k) % 2, `${i + k}, "${letters()}"`, c!.ground_truth, new Date().toISOString()),
    );
    await env.DB.batch(batch);
  }
}

/**
 * The bucket, failing once at the `nth` call of one of its operations: a multipart part's upload
 * counts as `uploadPart`; `complete` completes the upload and then fails, as a step that dies
 * right after finishing the file would.
 */
function failingOnce(bucket: R2Bucket, operation: 'put' | 'uploadPart' | 'get' | 'complete', nth: number): { bucket: R2Bucket; failed: () => boolean } {
  let calls = 0;
  let failed = false;
  const trip = () => {
    calls += 1;
    if (calls === nth && !failed) {
      failed = true;
      throw new Error(`R2 ${operation} failed (test)`);
    }
  };
  const wrapUpload = (upload: R2MultipartUpload): R2MultipartUpload =>
    new Proxy(upload, {
      get(target, prop) {
        if (prop === 'uploadPart' && operation === 'uploadPart') {
          return async (n: number, body: Uint8Array) => {
            trip();
            return target.uploadPart(n, body);
          };
        }
        if (prop === 'complete' && operation === 'complete') {
          return async (parts: R2UploadedPart[]) => {
            const done = await target.complete(parts);
            trip();
            return done;
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  const wrapped = new Proxy(bucket, {
    get(target, prop) {
      if (prop === operation && operation !== 'uploadPart' && operation !== 'complete') {
        return async (...args: unknown[]) => {
          trip();
          return (target as unknown as Record<string, (...a: unknown[]) => unknown>)[operation]!.apply(target, args);
        };
      }
      if (prop === 'createMultipartUpload') return async (key: string, options?: R2MultipartOptions) => wrapUpload(await target.createMultipartUpload(key, options));
      if (prop === 'resumeMultipartUpload') return (key: string, id: string) => wrapUpload(target.resumeMultipartUpload(key, id));
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { bucket: wrapped, failed: () => failed };
}

/** Runs a job's steps to the end, each step at most one page of a table; failed steps are tried again, as the Workflow does. */
async function runToEnd(job: ExportJob, bucket: R2Bucket, limits = { rows: 1, ms: 60_000 }) {
  const parts = jobParts(db, job);
  let current = job;
  let failures = 0;
  while (current.status === 'running') {
    try {
      current = await runExportStep(db, bucket, job.id, parts, 'test', limits);
    } catch (err) {
      failures += 1;
      if (failures > 5) throw err;
      current = (await exportJobById(db, job.id))!;
    }
  }
  return { job: current, failures };
}

async function zipOf(job: ExportJob) {
  const object = await env.EXPORTS.get(job.objectKey);
  expect(object).not.toBeNull();
  return new Uint8Array(await object!.arrayBuffer());
}

const csvRows = (text: string) => Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true }).data;

let answerer = '';
const STORED_ANSWERS = 9_000;

beforeAll(async () => {
  await seedCompasStudy();
  cookie = await adminCookie();
  answerer = (await consentedParticipant()).id;
  await storeAnswers(answerer, STORED_ANSWERS);
}, 120_000);

describe('the stepwise all-data export', () => {
  it('writes in many steps the files it writes in one, and resumes after a failed step at any point with the very bytes it would have written', async () => {
    const now = new Date('2026-11-28T09:00:00.000Z');
    const whole = await runToEnd(await startAllDataExport(db, 'all_data', 'csv', {}, now), env.EXPORTS, { rows: 1e9, ms: 1e9 });
    expect(whole.job.steps).toBe(1);
    const stepwise = await runToEnd(await startAllDataExport(db, 'all_data', 'csv', {}, now), env.EXPORTS);
    expect(stepwise.failures).toBe(0);
    expect(stepwise.job.steps).toBeGreaterThan(5);
    expect(stepwise.job.rows).toBe(whole.job.rows);
    const reference = await zipOf(stepwise.job);
    // Past one 5 MiB part: the multipart upload and the carry between steps are both exercised.
    expect(reference.length).toBeGreaterThan(5 * 1024 * 1024);
    // The same files, to the byte, however the steps cut them (each step's deflate ends on a sync flush).
    const inOne = unzipSync(await zipOf(whole.job));
    const inSteps = unzipSync(reference);
    expect(Object.keys(inSteps)).toEqual(Object.keys(inOne));
    for (const [name, bytes] of Object.entries(inOne)) expect(strFromU8(inSteps[name]!), name).toBe(strFromU8(bytes));

    for (const [operation, nth] of [
      ['put', 2],
      ['uploadPart', 1],
      ['get', 3],
      ['complete', 1],
    ] as const) {
      const faulty = failingOnce(env.EXPORTS, operation, nth);
      const resumed = await runToEnd(await startAllDataExport(db, 'all_data', 'csv', {}, now), faulty.bucket);
      expect(faulty.failed(), operation).toBe(true);
      expect(resumed.failures, operation).toBe(1);
      expect((resumed.job.cursor as ExportCursor).parts.length, operation).toBeGreaterThanOrEqual(1);
      const bytes = await zipOf(resumed.job);
      expect(bytes.length, operation).toBe(reference.length);
      expect(bytes.every((b, i) => b === reference[i]), operation).toBe(true);
      expect(resumed.job.rows, operation).toBe(whole.job.rows);
      // No carry is left behind.
      const carries = await env.EXPORTS.list({ prefix: `export-jobs/${resumed.job.id}/` });
      expect(carries.objects, operation).toEqual([]);
    }

    const files = inSteps;
    const answers = csvRows(strFromU8(files['pre-experiment.csv']!)).filter((r) => r.user_name === answerer);
    expect(answers).toHaveLength(STORED_ANSWERS);
    expect(new Set(answers.map((r) => r.id)).size).toBe(STORED_ANSWERS);
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['participants.csv', 'codebook.csv', 'study-config.json', 'analysis/reproduce.py']));
    // The copy is indexed for withdrawals.
    const copy = await env.DB.prepare('select participant_codes from export_copies where object_key = ?').bind(whole.job.objectKey).first<{ participant_codes: string }>();
    expect(JSON.parse(copy!.participant_codes)).toContain(answerer);
  }, 240_000);

  it('starts an export again without a withdrawing participant whose rows it had already written', async () => {
    const leaving = await consentedParticipant();
    await storeAnswers(leaving.id, 10);
    const job = await startAllDataExport(db, 'all_data', 'csv', {}, new Date());
    const parts = jobParts(db, job);
    let current = job;
    while (!current.holds.includes(leaving.id)) current = await runExportStep(db, env.EXPORTS, job.id, parts, 'test', { rows: 1, ms: 60_000 });
    expect((await postJson('/api/experiments/withdraw', { participant_id: leaving.id, confirm: true })).status).toBe(200);
    const restarted = (await exportJobById(db, job.id))!;
    expect(restarted.rows).toBe(0);
    expect(restarted.holds).toEqual([]);
    const { job: done } = await runToEnd(restarted, env.EXPORTS, { rows: 1e9, ms: 1e9 });
    const files = unzipSync(await zipOf(done));
    for (const name of ['participants.csv', 'pre-experiment.csv', 'consent.csv']) {
      expect(strFromU8(files[name]!), name).not.toContain(leaving.id);
    }
    // The list of whom a complete export holds is export_copies' (a withdrawal reads it there).
    expect(done.holds).toEqual([]);
    const copy = await env.DB.prepare('select participant_codes from export_copies where object_key = ?').bind(done.objectKey).first<{ participant_codes: string }>();
    expect(JSON.parse(copy!.participant_codes)).toContain(answerer);
    expect(JSON.parse(copy!.participant_codes)).not.toContain(leaving.id);

    // A complete export that holds a participant who withdraws is deleted, and says so when asked for.
    const staying = await consentedParticipant();
    await storeAnswers(staying.id, 3);
    const held = await runToEnd(await startAllDataExport(db, 'all_data', 'csv', {}, new Date()), env.EXPORTS, { rows: 1e9, ms: 1e9 });
    expect((await asAdmin(`/api/admin/export-jobs/${held.job.id}/file`)).status).toBe(200);
    expect((await postJson('/api/experiments/withdraw', { participant_id: staying.id, confirm: true })).status).toBe(200);
    const gone = await asAdmin(`/api/admin/export-jobs/${held.job.id}/file`);
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as { detail: string }).detail).toContain('withdrew');
  }, 120_000);
});

describe('/api/admin/export-jobs', () => {
  it('starts the export as a Workflow, shows its progress, and serves the zip once complete', async () => {
    const started = await postAsAdmin('/api/admin/export-jobs', { format: 'tsv' });
    expect(started.status).toBe(202);
    const { job } = (await started.json()) as { job: unknown };
    const view = exportJobViewSchema.parse(job);
    expect(view).toMatchObject({ kind: 'all_data', format: 'tsv', status: 'running', files_done: 0, rows: 0 });
    expect(view.files_total).toBeGreaterThan(20);
    await using instance = await introspectWorkflowInstance(env.EXPORT_WORKFLOW, view.id);
    await instance.waitForStatus('complete');
    const listed = exportJobsResponseSchema.parse(await (await asAdmin('/api/admin/export-jobs')).json());
    const done = listed.jobs.find((j) => j.id === view.id)!;
    expect(done).toMatchObject({ status: 'completed', files_done: view.files_total, current_file: null });
    expect(done.rows).toBeGreaterThan(STORED_ANSWERS);
    const file = await asAdmin(`/api/admin/export-jobs/${view.id}/file`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toContain(done.file_name);
    const files = unzipSync(new Uint8Array(await file.arrayBuffer()));
    expect(strFromU8(files['pre-experiment.tsv']!).split('\r\n')[0]).toContain('\tuser_name\t');
  }, 120_000);

  it('tries a failing step again, and a job whose every try failed resumes from its last step', async () => {
    const started = exportJobViewSchema.parse(((await (await postAsAdmin('/api/admin/export-jobs', {})).json()) as { job: unknown }).job);
    await using retried = await introspectWorkflowInstance(env.EXPORT_WORKFLOW, started.id);
    await retried.modify(async (m) => {
      await m.disableRetryDelays();
      await m.mockStepError({ name: 'export step 1' }, new Error('D1 unavailable (test)'), 2);
    });
    await retried.waitForStatus('complete');
    expect((await exportJobById(db, started.id))!.status).toBe('completed');

    // A job whose steps kept failing: marked failed, then resumed by the dashboard.
    const stuck = await startAllDataExport(db, 'all_data', 'csv', {}, new Date());
    await runExportStep(db, env.EXPORTS, stuck.id, jobParts(db, stuck), 'test', { rows: 1, ms: 60_000 });
    await noteFailedStep(db, stuck.id, new Error('every try failed (test)'), true);
    const failed = exportJobViewSchema.parse(((await (await asAdmin(`/api/admin/export-jobs/${stuck.id}`)).json()) as { job: unknown }).job);
    expect(failed).toMatchObject({ status: 'failed', last_error: 'every try failed (test)', steps: 1 });
    expect((await asAdmin(`/api/admin/export-jobs/${stuck.id}/file`)).status).toBe(409);
    const resumed = await postAsAdmin(`/api/admin/export-jobs/${stuck.id}/resume`, {});
    expect(resumed.status).toBe(200);
    for (let i = 0; i < 100 && (await exportJobById(db, stuck.id))!.status === 'running'; i++) await new Promise((r) => setTimeout(r, 100));
    const finished = (await exportJobById(db, stuck.id))!;
    expect(finished.status).toBe('completed');
    expect(finished.steps).toBeGreaterThan(1);
    const answers = csvRows(strFromU8(unzipSync(await zipOf(finished))['pre-experiment.csv']!)).filter((r) => r.user_name === answerer);
    expect(answers).toHaveLength(STORED_ANSWERS);
    // Only a stopped or stalled job resumes: not a complete one, nor one whose steps are moving.
    expect((await postAsAdmin(`/api/admin/export-jobs/${stuck.id}/resume`, {})).status).toBe(409);
    const moving = await startAllDataExport(db, 'all_data', 'csv', {}, new Date());
    expect((await postAsAdmin(`/api/admin/export-jobs/${moving.id}/resume`, {})).status).toBe(409);
    // A job from before leases whose Workflow was lost: no step for longer than EXPORT_STALLED_MINUTES.
    await env.DB.prepare('update export_jobs set updated_at = ?, lease_until = null where id = ?')
      .bind(new Date(Date.now() - (EXPORT_STALLED_MINUTES + 1) * 60_000).toISOString(), moving.id)
      .run();
    expect(exportJobViewSchema.parse(((await (await asAdmin(`/api/admin/export-jobs/${moving.id}`)).json()) as { job: unknown }).job)).toMatchObject({ status: 'running', stalled: true });
    expect((await postAsAdmin(`/api/admin/export-jobs/${moving.id}/resume`, {})).status).toBe(200);
    for (let i = 0; i < 100 && (await exportJobById(db, moving.id))!.status === 'running'; i++) await new Promise((r) => setTimeout(r, 100));
    expect((await exportJobById(db, moving.id))!.status).toBe('completed');
  }, 120_000);

  it('knows a job whose runner is gone within seconds, resumes it then, and the runner that comes back stands down', async () => {
    const uninterrupted = await runToEnd(await startAllDataExport(db, 'all_data', 'csv', {}, new Date()), env.EXPORTS, { rows: 1e9, ms: 1e9 });
    // A server killed after a step committed: its runner takes no further step.
    const crashed = await startAllDataExport(db, 'all_data', 'csv', {}, new Date());
    const parts = jobParts(db, crashed);
    await runExportStep(db, env.EXPORTS, crashed.id, parts, 'killed-server', { rows: 1, ms: 60_000 });
    const view = async () => exportJobViewSchema.parse(((await (await asAdmin(`/api/admin/export-jobs/${crashed.id}`)).json()) as { job: unknown }).job);
    expect(await view()).toMatchObject({ status: 'running', stalled: false, steps: 1 });
    expect((await postAsAdmin(`/api/admin/export-jobs/${crashed.id}/resume`, {})).status).toBe(409);
    // Once its lease runs out (EXPORT_LEASE_SECONDS after its last step), the dashboard knows and may resume.
    await new Promise((r) => setTimeout(r, (EXPORT_LEASE_SECONDS + 1) * 1000));
    expect(await view()).toMatchObject({ status: 'running', stalled: true });
    expect((await postAsAdmin(`/api/admin/export-jobs/${crashed.id}/resume`, {})).status).toBe(200);
    for (let i = 0; i < 200 && (await exportJobById(db, crashed.id))!.status === 'running'; i++) await new Promise((r) => setTimeout(r, 100));
    const finished = (await exportJobById(db, crashed.id))!;
    expect(finished.status).toBe('completed');
    // The old runner, back, stands down and changes nothing; the zip is the uninterrupted one's, byte for byte (but the time in its file headers).
    await expect(runExportStep(db, env.EXPORTS, crashed.id, parts, 'killed-server')).resolves.toMatchObject({ status: 'completed', steps: finished.steps });
    const reopened = await startAllDataExport(db, 'all_data', 'csv', {}, new Date());
    await runExportStep(db, env.EXPORTS, reopened.id, jobParts(db, reopened), 'first', { rows: 1, ms: 60_000 });
    await expect(runExportStep(db, env.EXPORTS, reopened.id, jobParts(db, reopened), 'second')).rejects.toThrow(ExportJobSuperseded);
    const a = unzipSync(await zipOf(uninterrupted.job));
    const b = unzipSync(await zipOf(finished));
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    for (const name of Object.keys(a).filter((n) => n.endsWith('.csv') && !n.startsWith('analysis'))) expect(strFromU8(b[name]!), name).toBe(strFromU8(a[name]!));
  }, 120_000);

  it('refuses bad input with a 4xx and a detail, and unknown jobs with 404', async () => {
    for (const body of [{ format: 'xlsx' }, { unknown: true }, { user_name: '' }]) {
      const res = await postAsAdmin('/api/admin/export-jobs', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as { detail?: unknown }).detail).toBeTruthy();
    }
    expect((await asAdmin('/api/admin/export-jobs/not-a-uuid')).status).toBe(400);
    expect((await asAdmin(`/api/admin/export-jobs/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await api('/api/admin/export-jobs')).status).toBe(401);
  });
});
