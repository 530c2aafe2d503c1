/**
 * Fault injection over the whole study: many simulated participants walk every phase at once
 * through the real API of a local Worker (`wrangler dev`, local D1/R2), while requests are lost
 * on the way, answers are lost on the way back, requests go out twice, some participants have a
 * second tab sending the same answers in reverse order, every participant sends its answers out
 * of order, and the Worker is killed with SIGKILL mid-run and started again on the same state.
 * Afterwards the database must hold exactly what each participant had acknowledged: none lost,
 * none twice, none without an acknowledgement.
 *
 * Size: XDL_FAULT_PARTICIPANTS (200 under `npm run test:faults`, fewer inside `npm test`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareLocalState } from '../../ml-assets/lib/seed';
import { freeLoopbackPort, killLocalWorker, localD1Rows, startLocalWorker } from '../../ml-assets/lib/wrangler';
import {
  ApiClient,
  datasetFor,
  enter,
  newAcknowledged,
  preCaseIds,
  seeded,
  sendMainCase,
  sendPostSurvey,
  sendPreAnswer,
  sendPreBatch,
  trainAndStartMain,
  type Acknowledged,
  type FaultPlan,
} from '../helpers/simulated-participant';

const PARTICIPANTS = Number(process.env.XDL_FAULT_PARTICIPANTS ?? 200);
const FAULTS: FaultPlan = { dropRequest: 0.03, dropAnswer: 0.03, duplicate: 0.03 };
/** Every fifth participant has a second tab. */
const TWO_TABS_EVERY = 5;

let persistTo = '';
let port = 0;
let worker: ChildProcess | null = null;

const start = () => startLocalWorker({ port, persistTo, vars: { ADMIN_PASSWORD: 'faults' }, stdio: 'ignore', detached: true });

beforeAll(async () => {
  persistTo = mkdtempSync(path.join(os.tmpdir(), 'xdl-faults-'));
  await prepareLocalState(persistTo);
  port = await freeLoopbackPort();
  worker = await start();
}, 240_000);

afterAll(async () => {
  if (worker) await killLocalWorker(worker, 'SIGTERM');
  rmSync(persistTo, { recursive: true, force: true });
});

const shuffled = <T>(items: readonly T[], random: () => number): T[] => {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
};

/** A second tab of the same participant: the same answers, in reverse order, at the same time. */
async function secondTab(client: ApiClient, ack: Acknowledged, preIds: readonly string[], mainIds: Promise<string[]>) {
  for (const caseId of [...preIds].reverse()) await sendPreAnswer(client, ack, caseId);
  const ids = await mainIds;
  for (let index = ids.length - 1; index >= 0; index--) await sendMainCase(client, ack, ids[index]!, index);
}

type Progress = { preAnswers: number; clients: ApiClient[] };

async function participant(index: number, baseUrl: string, progress: Progress): Promise<Acknowledged> {
  const random = seeded(1000 + index);
  const client = (tab: number) => {
    const made = new ApiClient({ baseUrl, clientIp: `10.${tab}.${index >> 8}.${index & 255}`, faults: FAULTS, random: seeded(index * 7 + tab), retryForMs: 180_000 });
    progress.clients.push(made);
    return made;
  };
  const tab1 = client(1);
  const ack = newAcknowledged(datasetFor(index));
  await enter(tab1, ack);
  const preIds = await preCaseIds(tab1, ack.id);

  let mainStarted!: (ids: string[]) => void;
  const mainIds = new Promise<string[]>((r) => (mainStarted = r));
  const tab2 = index % TWO_TABS_EVERY === 0 ? secondTab(client(2), ack, preIds, mainIds) : Promise.resolve();

  for (const caseId of shuffled(preIds, random)) {
    await sendPreAnswer(tab1, ack, caseId);
    progress.preAnswers++;
  }
  if (!(await sendPreBatch(tab1, ack, preIds))) throw new Error(`${ack.id}: the final send did not complete the pre-experiment`);
  const caseIds = await trainAndStartMain(tab1, ack);
  mainStarted(caseIds);
  for (const [i, caseId] of caseIds.entries()) await sendMainCase(tab1, ack, caseId, i);
  await tab2;
  await sendPostSurvey(tab1, ack);
  return ack;
}

type Row = { session_id: string; case_id: string; n: number; prediction: number; confidence: number };

describe('the whole study under faults', () => {
  it(`keeps every acknowledged answer of ${PARTICIPANTS} concurrent participants exactly once, across a SIGKILL of the Worker`, async () => {
    const baseUrl = `http://127.0.0.1:${port}`;
    const progress: Progress = { preAnswers: 0, clients: [] };
    const run = Promise.all(Array.from({ length: PARTICIPANTS }, (_, i) => participant(i, baseUrl, progress)));

    // Kill the Worker (wrangler and workerd, no chance to flush) once a third of the pre-experiment is in, then start it again on the same state.
    let killedAt = -1;
    const killer = (async () => {
      while (progress.preAnswers < (PARTICIPANTS * 200) / 3) await new Promise((r) => setTimeout(r, 200));
      killedAt = progress.preAnswers;
      await killLocalWorker(worker!, 'SIGKILL');
      worker = await start();
    })();

    const acks = await run;
    await killer;
    expect(killedAt).toBeGreaterThan(0);
    const injected = { calls: 0, retries: 0, droppedRequests: 0, droppedAnswers: 0, duplicates: 0 };
    for (const c of progress.clients) for (const k of Object.keys(injected) as (keyof typeof injected)[]) injected[k] += c.stats[k];
    console.log(`faults: ${JSON.stringify({ participants: PARTICIPANTS, killedAfterPreAnswers: killedAt, ...injected })}`);
    // The faults happened: each kind at least once, and retries beyond them (the restart).
    expect(Math.min(injected.droppedRequests, injected.droppedAnswers, injected.duplicates)).toBeGreaterThan(0);
    expect(injected.retries).toBeGreaterThan(injected.droppedRequests + injected.droppedAnswers);

    const ids = acks.map((a) => a.id);
    const pre = localD1Rows<Row>(
      persistTo,
      `select session_id, case_id, count(*) as n, min(prediction) as prediction, min(confidence) as confidence from pre_experiment_responses group by session_id, case_id`,
    );
    const main = localD1Rows<{ session_id: string; case_id: string; n: number; initial_prediction: number; final_prediction: number; trust: number }>(
      persistTo,
      `select session_id, case_id, count(*) as n, min(initial_prediction) as initial_prediction, min(final_prediction) as final_prediction, min(trust) as trust
       from main_experiment_responses where completed_at is not null group by session_id, case_id`,
    );
    const surveys = localD1Rows<{ session_id: string; n: number }>(persistTo, `select session_id, count(*) as n from post_surveys group by session_id`);
    const sessions = localD1Rows<{ session_id: string; phase: string; consented: number; pre_done: number; main_done: number; survey_done: number }>(
      persistTo,
      `select session_id, current_phase as phase, consented_at is not null as consented, pre_completed_at is not null as pre_done,
              main_completed_at is not null as main_done, post_survey_completed_at is not null as survey_done from sessions`,
    );

    // None twice.
    expect(pre.filter((r) => r.n !== 1)).toEqual([]);
    expect(main.filter((r) => r.n !== 1)).toEqual([]);
    expect(surveys.filter((r) => r.n !== 1)).toEqual([]);

    // None lost, each as sent: the stored rows are exactly the acknowledged ones.
    const byParticipant = <R extends { session_id: string }>(rows: R[]) => {
      const out = new Map<string, R[]>();
      for (const r of rows) out.set(r.session_id, [...(out.get(r.session_id) ?? []), r]);
      return out;
    };
    const preBy = byParticipant(pre);
    const mainBy = byParticipant(main);
    const lost: string[] = [];
    for (const ack of acks) {
      const storedPre = new Map((preBy.get(ack.id) ?? []).map((r) => [r.case_id, r]));
      expect(ack.pre.size).toBe(200);
      for (const [caseId, sent] of ack.pre) {
        const row = storedPre.get(caseId);
        if (!row) lost.push(`${ack.id} pre ${caseId}`);
        else expect({ prediction: row.prediction, confidence: row.confidence }).toEqual({ prediction: sent.prediction, confidence: sent.confidence });
      }
      expect(storedPre.size).toBe(ack.pre.size);
      const storedMain = new Map((mainBy.get(ack.id) ?? []).map((r) => [r.case_id, r]));
      expect(ack.main.size).toBe(50);
      for (const [caseId, sent] of ack.main) {
        const row = storedMain.get(caseId);
        if (!row) lost.push(`${ack.id} main ${caseId}`);
        else expect({ initial: row.initial_prediction, final: row.final_prediction, trust: row.trust }).toEqual(sent);
      }
      expect(storedMain.size).toBe(ack.main.size);
    }
    expect(lost).toEqual([]);
    expect(new Set(surveys.map((s) => s.session_id))).toEqual(new Set(ids));

    // None without an acknowledgement: every stored answer belongs to an acknowledged participant
    // (and was checked above), and no participant exists that no one was told they created (a
    // creation resent after its answer was lost is recognised by its request ID).
    const known = new Set(ids);
    expect(pre.filter((r) => !known.has(r.session_id))).toEqual([]);
    expect(main.filter((r) => !known.has(r.session_id))).toEqual([]);
    expect(acks.flatMap((a) => a.abandonedIds)).toEqual([]);
    expect(sessions.filter((s) => !known.has(s.session_id))).toEqual([]);

    // Every participant finished, and the phase flags say so.
    const mine = sessions.filter((s) => known.has(s.session_id));
    expect(mine.filter((s) => !(s.consented && s.pre_done && s.main_done && s.survey_done))).toEqual([]);

    // The researcher's all-data export, taken from the Worker that survived the faults, holds
    // exactly the stored answers: every pre and main answer once, every survey.
    // A pooled connection the Worker has closed meanwhile fails once; these checks are not under test.
    const fetchAgain = async (url: string, init?: RequestInit) => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await fetch(url, init);
        } catch (err) {
          if (attempt === 2) throw err;
        }
      }
    };
    const login = await fetchAgain(`${baseUrl}/api/admin/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ password: 'faults' }) });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const zip = await fetchAgain(`${baseUrl}/api/enhanced-export/all-data`, { headers: { Cookie: cookie } });
    expect(zip.status).toBe(200);
    const files = unzipSync(new Uint8Array(await zip.arrayBuffer()));
    const table = (name: string) => Papa.parse<Record<string, string>>(strFromU8(files[`${name}.csv`]!), { header: true, skipEmptyLines: true }).data;
    const keys = (rows: { session_id: string; case_id: string }[]) => rows.map((r) => `${r.session_id}/${r.case_id}`).sort();
    expect(keys(table('pre-experiment') as never)).toEqual(keys(pre));
    expect(keys(table('main-experiment') as never)).toEqual(keys(main));
    expect(table('post-survey').map((r) => r.session_id).sort()).toEqual(surveys.map((r) => r.session_id).sort());

    // Model verification over the same run: every participant's own accuracy is counted once,
    // from exactly the answers stored.
    const compared: { username: string; valid_cases: number }[] = [];
    for (const dataset of ['adult_income', 'speed_dating', 'compas']) {
      const res = await fetchAgain(`${baseUrl}/api/model-verification/comparison/ai-vs-users?dataset_type=${dataset}`, { headers: { Cookie: cookie } });
      expect(res.status).toBe(200);
      compared.push(...((await res.json()) as { user_models: { individual_performances: { username: string; valid_cases: number }[] } }).user_models.individual_performances);
    }
    expect(compared.map((p) => p.username).sort()).toEqual([...ids].sort());
    expect(compared.every((p) => p.valid_cases === 200)).toBe(true);
  });
});
