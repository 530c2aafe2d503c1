/**
 * Participants made through the live Worker's API, for tests that start mid-journey, and the
 * browser storage that makes a page treat them as this browser's participant.
 */
import type { Locator, Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { localD1Rows } from '../../ml-assets/lib/wrangler';
import { rememberParticipant } from './remembered-participant';
import { completePostSurvey } from '../helpers/post-survey-answers';
import { initialJudgement, integratedAnswer } from '../helpers/simulated-participant';
import type { DatasetType, Language } from '../../worker/schemas/study-config';
import { CONSENT_ITEMS } from '../../worker/schemas/study-config';
import { generateParticipantId } from '../../web/lib/session-id';
import { sessionKeys } from '../../web/lib/storage-keys';

let made = 0;

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${inject('baseUrl')}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': `198.51.100.${++made % 250}-${process.pid}-${made}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export type TestParticipant = { id: string; userId: number; datasetType: DatasetType };

/** A new participant bound to `datasetType`, consented unless told otherwise. */
export async function makeParticipant(datasetType: DatasetType, options: { consent?: boolean } = {}): Promise<TestParticipant> {
  const id = generateParticipantId();
  await call('POST', '/api/experiments/dataset-assignment/explicit', { session_id: id, dataset_type: datasetType, created_by: 'system' });
  const session = await call<{ user_id: number }>('POST', '/api/experiments/sessions', { participant_name: id, dataset_type: datasetType, new_participant: true });
  if (options.consent !== false) {
    await call('POST', '/api/consent/submit', { session_id: id, consent_items: Object.fromEntries(CONSENT_ITEMS.map((k) => [k, true])) });
  }
  return { id, userId: session.user_id, datasetType };
}

/** The participant's stored pre-experiment case set, in order. */
export async function preCaseSet(p: TestParticipant): Promise<{ case_id: string; case_number: number }[]> {
  const set = await call<{ case_set: { case_id: string; case_number: number }[] }>(
    'GET',
    `/api/experiments/case-sets/fixed?participant_id=${p.id}&num_cases=200&experiment_type=pre_experiment`,
  );
  return set.case_set;
}

/** Stores answers for the first `count` cases of the participant's set through the API. */
export async function answerThroughApi(p: TestParticipant, count: number): Promise<void> {
  const cases = (await preCaseSet(p)).slice(0, count);
  await call('POST', '/api/experiments/pre-experiment/responses/batch', {
    session_id: p.id,
    responses: cases.map((c, i) => ({ case_id: c.case_id, case_number: c.case_number, prediction: i % 2, confidence: 1 + (i % 5), response_time_ms: 1500 })),
  });
}

/** A participant with all 200 pre-experiment answers (given through the API) and a trained user model. */
export async function participantReadyForMain(datasetType: DatasetType): Promise<TestParticipant> {
  const p = await makeParticipant(datasetType);
  await preThroughApi(p);
  return p;
}

/**
 * A participant past the main experiment: 200 pre-experiment answers and 50 main cases, each
 * saved with the explanation the Worker gives for it, all through the API.
 */
export async function participantDoneWithMain(datasetType: DatasetType): Promise<TestParticipant> {
  const p = await participantReadyForMain(datasetType);
  await mainThroughApi(p);
  return p;
}

/** All 200 pre-experiment answers and a trained user model for a participant who has consented. */
export async function preThroughApi(p: TestParticipant): Promise<void> {
  await answerThroughApi(p, 200);
  const trained = await call<{ status: string }>('POST', '/api/user-model/train', { session_id: p.id, dataset_type: p.datasetType });
  if (trained.status !== 'trained') throw new Error(`user model not trained: ${trained.status}`);
}

/** Starts the participant's main experiment through the API: the Worker draws the set and the condition, which this returns. */
export async function startMainThroughApi(p: TestParticipant): Promise<{ name: string; shows: string; ai_timing: string | null; judgements: number }> {
  return (await call<{ condition: { name: string; shows: string; ai_timing: string | null; judgements: number } }>('POST', '/api/experiments/main/start', { session_id: p.id })).condition;
}

/** The first `count` main cases (all 50 by default) not yet stored, each saved with the explanation the Worker gives for it. */
export async function mainThroughApi(p: TestParticipant, count = 50): Promise<void> {
  const started = await call<{ case_set: { case_id: string }[]; answered_case_ids: string[] }>('POST', '/api/experiments/main/start', { session_id: p.id });
  const stored = new Set(started.answered_case_ids);
  for (let i = 0; i < count; i++) if (!stored.has(started.case_set[i]!.case_id)) await mainCaseThroughApi(p, i);
}

/** The main case at `index` (0-based), revealed with an initial judgement and saved, as another device would. */
export async function mainCaseThroughApi(p: TestParticipant, index: number): Promise<void> {
  const started = await call<{ case_set: { case_id: string }[] }>('POST', '/api/experiments/main/start', { session_id: p.id });
  const c = started.case_set[index]!;
  const e = await call<Record<string, unknown> & { prediction: 0 | 1 }>('POST', '/api/human-aligned-explanation', { session_id: p.id, case_id: c.case_id, ...initialJudgement(index % 2) });
  await call('POST', '/api/experiments/main/integrated-response', integratedAnswer(p.id, c.case_id, e, { initial: index % 2, trust: 3 }));
}

/** The post-survey with the default answers: the study is then complete. */
export async function postSurveyThroughApi(p: TestParticipant): Promise<void> {
  await call('POST', '/api/post-survey', { session_id: p.id, ...completePostSurvey() });
}

/** Reads the running Worker's local D1 directly, as a researcher's query would. */
export const d1Rows = <T>(sql: string): T[] => localD1Rows<T>(inject('persistTo'), sql);

/** Opens the app once so this browser remembers `p` (and the language) as a returning participant would. */
export const adoptParticipant = (page: Page, p: TestParticipant, language: Language, extra: { tutorialDone?: boolean } = {}) =>
  rememberParticipant(page, inject('baseUrl'), p, language, extra.tutorialDone ? { [sessionKeys.preTutorialDone]: 'true' } : {});

/** On the main intro: marks this tab's tutorial and understanding test done (as a participant who did them), then starts the cases. */
export async function startMainPrepared(page: Page, startLabel: string): Promise<void> {
  await page.evaluate((keys) => {
    sessionStorage.setItem(keys.mainTutorialDone, 'true');
    sessionStorage.setItem(keys.mainTestPassed, 'true');
  }, sessionKeys);
  await page.reload();
  await page.getByRole('button', { name: startLabel, exact: true }).click();
}

/**
 * The first step of the main case on the page, the task's sentence checked on its answer bar: an
 * initial judgement and confidence, submitted. Resolves to the AI's prediction as the next step shows it.
 */
export async function judgeInitially(page: Page, task: string, submitLabel: string): Promise<Locator> {
  await page.locator('.case-card h2').waitFor();
  expect(await page.locator('.answer-bar .judgement-prediction').innerText()).toContain(task);
  await page.locator('.judgement-prediction .radio').nth(0).click();
  await page.locator('.judgement-confidence .radio').nth(3).click();
  await page.getByRole('button', { name: submitLabel, exact: true }).click();
  const prediction = page.locator('.explanation-panel').getByTestId('ai-prediction');
  await prediction.waitFor();
  return prediction;
}
