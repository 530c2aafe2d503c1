/**
 * Simulated participants that walk the study through the real HTTP API, as the SPA does:
 * entry → consent → 200 pre-experiment answers (each sent alone, then the final full send) →
 * user model → main start → 50 × (explanation, integrated case) → post-survey. Used by the
 * fault-injection suite (with faults switched on) and the load benchmark (at study pace).
 *
 * Every call is retried on a network failure, a 5xx or a 429, with the same body, as the
 * browser's outbox does; a 4xx other than 429 is a refusal and fails the participant. What each
 * participant had acknowledged is recorded, so a run can compare the database with it.
 */
import { mulberry32 } from '../../worker/services/analytics/inference';
import { CONSENT_ITEMS, DATASET_TYPES, type DatasetType } from '../../worker/schemas/study-config';
import { generateParticipantId, newRequestId } from '../../web/lib/session-id';
import { completePostSurvey } from './post-survey-answers';

/** Faults injected per call, each with its probability (0 = never). */
export type FaultPlan = {
  /** The request is lost before it reaches the Worker. */
  dropRequest: number;
  /** The Worker handles the request but its answer is lost, so the client sends it again. */
  dropAnswer: number;
  /** The same request goes out twice at once (a double click, a proxy's retry). */
  duplicate: number;
};
export const NO_FAULTS: FaultPlan = { dropRequest: 0, dropAnswer: 0, duplicate: 0 };

/** A small seeded generator (the analytics' mulberry32), so a failing run can be repeated. */
export const seeded = mulberry32;

export class RefusedError extends Error {
  override readonly name = 'RefusedError';
  constructor(
    readonly status: number,
    readonly route: string,
    readonly body: string,
  ) {
    super(`${route} refused with ${status}: ${body.slice(0, 300)}`);
  }
}

type Json = Record<string, unknown>;

export type ApiClientOptions = {
  baseUrl: string;
  /** The address Cloudflare's edge would report for this participant (a local run trusts the header). */
  clientIp: string;
  faults?: FaultPlan;
  random?: () => number;
  /** Called with every answered call's route (query stripped) and wall time. */
  onTiming?: (endpoint: string, ms: number, status: number) => void;
  /** Give up on a call after this long of failures (a killed Worker must be back by then). */
  retryForMs?: number;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One participant's view of the API: retries like the browser, injects the planned faults. */
export class ApiClient {
  readonly stats = { calls: 0, retries: 0, droppedRequests: 0, droppedAnswers: 0, duplicates: 0 };
  private readonly faults: FaultPlan;
  private readonly random: () => number;

  constructor(private readonly options: ApiClientOptions) {
    this.faults = options.faults ?? NO_FAULTS;
    this.random = options.random ?? Math.random;
  }

  private async once(method: 'GET' | 'POST', route: string, body: unknown): Promise<{ status: number; text: string }> {
    const started = performance.now();
    const res = await fetch(`${this.options.baseUrl}${route}`, {
      method,
      headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': this.options.clientIp },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    this.options.onTiming?.(route.split('?')[0]!, performance.now() - started, res.status);
    return { status: res.status, text };
  }

  async call<T = Json>(method: 'GET' | 'POST', route: string, body?: unknown): Promise<{ status: number; body: T }> {
    const deadline = Date.now() + (this.options.retryForMs ?? 120_000);
    for (let attempt = 0; ; attempt++) {
      this.stats.calls++;
      if (attempt > 0) this.stats.retries++;
      let answer: { status: number; text: string } | null = null;
      try {
        if (this.random() < this.faults.dropRequest) {
          this.stats.droppedRequests++;
        } else if (this.random() < this.faults.duplicate) {
          this.stats.duplicates++;
          const [first] = await Promise.all([this.once(method, route, body), this.once(method, route, body)]);
          answer = first;
        } else {
          answer = await this.once(method, route, body);
        }
        if (answer && this.random() < this.faults.dropAnswer) {
          this.stats.droppedAnswers++;
          answer = null;
        }
      } catch {
        // Connection refused or reset (the Worker is down or restarting), or a timeout.
        answer = null;
      }
      if (answer && answer.status < 500 && answer.status !== 429) {
        if (answer.status >= 400) throw new RefusedError(answer.status, `${method} ${route}`, answer.text);
        return { status: answer.status, body: JSON.parse(answer.text) as T };
      }
      if (Date.now() > deadline) throw new Error(`${method} ${route}: no answer after ${attempt + 1} attempts (last ${answer?.status ?? 'network error'})`);
      await sleep(Math.min(2000, 50 * 2 ** Math.min(attempt, 6)) * (0.5 + this.random()));
    }
  }
}

/** What a participant sent and had acknowledged, to compare with the database afterwards. */
export type Acknowledged = {
  id: string;
  datasetType: DatasetType;
  /** Case → prediction, confidence, as sent (every send of a case carries the same values). */
  pre: Map<string, { prediction: number; confidence: number }>;
  main: Map<string, { initial: number; final: number; trust: number }>;
  postSurvey: boolean;
  /** IDs this participant's entry tried and was refused as taken. */
  abandonedIds: string[];
};

/** The answer a participant gives to a case: a pure function of both, so two tabs send the same. */
export function preAnswerFor(id: string, caseId: string) {
  let h = 0;
  for (const ch of id + caseId) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return { prediction: h % 2, confidence: 1 + (h % 5), response_time_ms: 800 + (h % 4000) };
}

export function newAcknowledged(datasetType: DatasetType): Acknowledged {
  return { id: '', datasetType, pre: new Map(), main: new Map(), postSurvey: false, abandonedIds: [] };
}

const consentItems = Object.fromEntries(CONSENT_ITEMS.map((k) => [k, true]));

/** Entry and consent: a fresh ID (a new one when the chosen ID turns out taken, as the SPA does). */
export async function enter(client: ApiClient, ack: Acknowledged): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const id = generateParticipantId();
    try {
      // Every send of this creation carries one request ID, as the SPA's does.
      await client.call('POST', '/api/experiments/sessions', { participant_name: id, dataset_type: ack.datasetType, language: 'ja', new_participant: true, request_id: newRequestId() });
      ack.id = id;
      break;
    } catch (err) {
      // A taken ID (another participant's): the SPA moves on to another.
      if (err instanceof RefusedError && err.status === 409) {
        ack.abandonedIds.push(id);
        continue;
      }
      throw err;
    }
  }
  if (!ack.id) throw new Error('no participant ID after 5 attempts');
  await client.call('POST', '/api/consent/submit', { session_id: ack.id, consent_items: consentItems });
}

export async function preCaseIds(client: ApiClient, id: string): Promise<string[]> {
  const { body } = await client.call<{ case_set: { case_id: string }[] }>(
    'GET',
    `/api/experiments/case-sets/fixed?participant_id=${id}&num_cases=200&experiment_type=pre_experiment`,
  );
  return body.case_set.map((c) => c.case_id);
}

/** One pre-experiment answer, sent alone (the per-case send). */
export async function sendPreAnswer(client: ApiClient, ack: Acknowledged, caseId: string): Promise<void> {
  const answer = preAnswerFor(ack.id, caseId);
  await client.call('POST', '/api/experiments/pre-experiment/responses', { session_id: ack.id, case_id: caseId, ...answer });
  ack.pre.set(caseId, { prediction: answer.prediction, confidence: answer.confidence });
}

/** The final full send of every answer; returns whether the server reports the phase complete. */
export async function sendPreBatch(client: ApiClient, ack: Acknowledged, caseIds: readonly string[]): Promise<boolean> {
  const responses = caseIds.map((case_id) => ({ case_id, ...preAnswerFor(ack.id, case_id) }));
  const { body } = await client.call<{ complete: boolean; total_responses: number }>('POST', '/api/experiments/pre-experiment/responses/batch', {
    session_id: ack.id,
    responses,
  });
  for (const r of responses) ack.pre.set(r.case_id, { prediction: r.prediction, confidence: r.confidence });
  return body.complete;
}

export async function trainAndStartMain(client: ApiClient, ack: Acknowledged): Promise<string[]> {
  const trained = await client.call<{ status: string }>('POST', '/api/user-model/train', { session_id: ack.id, dataset_type: ack.datasetType });
  if (trained.body.status !== 'trained') throw new Error(`${ack.id}: user model ${trained.body.status}`);
  const { body } = await client.call<{ case_set: { case_id: string }[] }>('POST', '/api/experiments/main/start', { session_id: ack.id });
  return body.case_set.map((c) => c.case_id);
}

/**
 * What a page sends of the explanation it showed, as the browser's case record does: every field
 * of the AI side as served, with the serve's id (the Worker stores the serve and checks these).
 */
export const servedClaims = (e: Json & { prediction: 0 | 1 }) => ({
  alignment_alpha: e.alignment_alpha,
  ai_prediction: e.prediction,
  ai_model_prediction: e.prediction,
  user_model_prediction: e.user_model_prediction,
  ai_feature_importance: e.ai_feature_importance,
  user_feature_importance: e.user_feature_importance,
  shown_feature_importance: e.shown_feature_importance,
  explanation_kind: e.explanation_kind,
  ai_model_identifier: e.model_identifier,
  user_model_identifier: e.user_model_identifier,
  ai_probability: e.ai_probability,
  user_model_probability: e.user_model_probability,
  served_explanation_id: e.served_explanation_id,
});

/** A participant's initial judgement of a case: the request that reveals the AI carries it, and the stored case repeats it. */
export const initialJudgement = (prediction: number) => ({ initial_prediction: prediction, initial_confidence: 3, initial_response_time_ms: 4000 });

/** The integrated response a participant sends for a case, from the explanation the Worker gave for it. */
export function integratedAnswer(sessionId: string, caseId: string, e: Json & { prediction: 0 | 1 }, choices: { initial: number; trust: number }) {
  return {
    session_id: sessionId,
    case_id: caseId,
    ...initialJudgement(choices.initial),
    final_prediction: e.prediction,
    final_confidence: 4,
    final_response_time_ms: 2000,
    ...servedClaims(e),
    comprehensibility: 4,
    transparency: 3,
    satisfaction: 4,
    trust: choices.trust,
    alignment: 2,
    explanation_viewing_time_ms: 5000,
    total_task_time_ms: 15000,
  };
}

/** One main case: the explanation, then the integrated response built from it. */
export async function sendMainCase(client: ApiClient, ack: Acknowledged, caseId: string, index: number): Promise<void> {
  const choices = { initial: preAnswerFor(ack.id, caseId).prediction, trust: 1 + (index % 5) };
  // The request that reveals the AI carries the initial judgement, as the participant's page sends it.
  let e: Json & { prediction: 0 | 1 };
  try {
    ({ body: e } = await client.call<Json & { prediction: 0 | 1 }>('POST', '/api/human-aligned-explanation', { session_id: ack.id, case_id: caseId, ...initialJudgement(choices.initial) }));
  } catch (err) {
    // Another tab of the participant stored the case first: this one is told the study moved on, as the page is, and goes on.
    if (err instanceof RefusedError && err.status === 409 && err.body.includes('"case_already_stored"')) return;
    throw err;
  }
  await client.call('POST', '/api/experiments/main/integrated-response', integratedAnswer(ack.id, caseId, e, choices));
  ack.main.set(caseId, { initial: choices.initial, final: e.prediction, trust: choices.trust });
}

export async function sendPostSurvey(client: ApiClient, ack: Acknowledged): Promise<void> {
  try {
    await client.call('POST', '/api/post-survey/', { session_id: ack.id, ...completePostSurvey() });
  } catch (err) {
    // The spec's client counts 409 "already answered" as done: a retry of a submit whose answer was lost.
    if (!(err instanceof RefusedError && err.status === 409 && err.route.startsWith('POST /api/post-survey'))) throw err;
  }
  ack.postSurvey = true;
}

/** Datasets in turn, so a run covers all three. */
export const datasetFor = (index: number): DatasetType => DATASET_TYPES[index % DATASET_TYPES.length]!;
