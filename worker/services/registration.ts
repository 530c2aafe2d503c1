/**
 * The registration tools' synthetic participants (part 2 §2.6, §7): created, consented and
 * answered through the same services as a real participant's calls, so what they exercise is the
 * study's own code. Answers are drawn from a generator seeded by the name, so registering the same
 * participant twice draws the same answers and a retry stores nothing twice.
 */
import type { KeptJudgement } from '../schemas/main-experiment';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/client';
import { caseSetItems, sessions } from '../db/schema';
import { conflict } from '../errors';
import { seededRandom } from '../ml/random';
import type { DatasetType } from '../schemas/study';
import { CONSENT_ITEMS, studyConfig } from '../schemas/study';
import { ensurePreCaseSet, seedOf, storedPreCaseSet } from './case-sets';
import { recordConsent } from './consent';
import { adviceWaitMsOf, advisesOnRequest, answerPlan, shapeOf, timeLimitOf, type RatingItem } from '../schemas/condition-plan';
import { explanationInputs, serveCase } from './explanation';
import { assignCondition } from './conditions';
import { ensureMainCaseSet } from './main-case-sets';
import { pinActiveAiModel } from './model-store';
import { storeIntegratedResponse } from './main-responses';
import { keepProgress } from './trial-progress';
import { countPreResponses, storePreAnswers } from './pre-experiment';
import { trainUserModel } from './user-model';
import { openSession } from './sessions';
import { findSession } from '../db/queries/sessions';

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

async function syntheticParticipant(db: Db, name: string, datasetType: DatasetType, now: string) {
  const { session } = await openSession(db, { code: name, datasetType, language: 'ja', newParticipant: false, prolific: {}, origin: 'admin_synthetic', now });
  if (!session.consentedAt) {
    await recordConsent(db, session, { items: Object.fromEntries(CONSENT_ITEMS.map((k) => [k, true])), ipAddress: null, userAgent: 'admin-registration', now });
  }
  return session;
}

export type PreRegistration = { name: string; datasetType: DatasetType; numResponses: number; accuracyRate: number; confidenceBias: number };

/**
 * Answers the first `numResponses` cases of the participant's fixed pre-experiment set: each
 * correct with probability `accuracyRate`, confidence around 3 + `confidenceBias` (higher when
 * right), response times of 2–12 s.
 */
export async function registerPreResponses(db: Db, input: PreRegistration, now: string) {
  const session = await syntheticParticipant(db, input.name, input.datasetType, now);
  await ensurePreCaseSet(db, session.sessionId, input.datasetType);
  const set = (await storedPreCaseSet(db, session.sessionId)).slice(0, input.numResponses);
  const random = seededRandom(seedOf(`pre:${input.name}`));
  const answers = set.map(({ row }) => {
    const correct = random() < input.accuracyRate;
    return {
      case_id: row.caseId,
      prediction: (correct ? row.groundTruth : 1 - row.groundTruth) as 0 | 1,
      confidence: clamp(Math.round(3 + input.confidenceBias + (correct ? 0.5 : -0.5) + (random() - 0.5) * 2), 1, 5),
      response_time_ms: Math.round(2000 + random() * 10000),
      groundTruth: row.groundTruth,
    };
  });
  const stored = await storePreAnswers(db, session.sessionId, answers, now);
  const correct = answers.filter((a) => a.prediction === a.groundTruth).length;
  const positives = set.filter((s) => s.row.groundTruth === 1).length;
  return {
    session,
    stored,
    stats: {
      total_responses: stored.total,
      accuracy_rate: answers.length > 0 ? correct / answers.length : 0,
      avg_response_time: answers.length > 0 ? answers.reduce((sum, a) => sum + a.response_time_ms, 0) / answers.length : 0,
    },
    caseSet: { positive_cases: positives, negative_cases: set.length - positives },
  };
}

export type MainRegistration = { name: string; datasetType: DatasetType; numResponses: number; accuracyRate: number; alpha?: number; condition?: string };

/**
 * Answers the first `numResponses` cases of the participant's main set as a participant of its
 * condition would (`condition` chooses it; otherwise it is drawn as for a person): with the AI's
 * prediction and the explanation the Worker computes for each where the condition shows them. The
 * first own judgement is right with probability `accuracyRate`; where it disagrees with the AI
 * shown it switches to the AI's advice half the time; where the AI is on request it is asked for on
 * about two cases in three. A given alpha becomes the alpha of every
 * case of this synthetic set (explanation conditions). Cases are numbered 201–250 so they never
 * pass for a person's.
 */
export async function registerMainResponses(db: Db, models: R2Bucket, input: MainRegistration, now: string) {
  // Every refusal comes before the first write: a refused registration stores nothing.
  const existing = await findSession(db, input.name);
  if (existing && existing.datasetType !== input.datasetType) {
    throw conflict('dataset_mismatch', `Participant ${input.name} takes part with ${existing.datasetType}`);
  }
  // As for a person, the main experiment follows the whole pre-experiment (otherwise the funnel and
  // the data would show a state no participant can reach), and the participant's own model is
  // fitted on it first, so the cases get the alpha mix rather than the AI-only fallback.
  const preAnswers = existing ? await countPreResponses(db, existing.sessionId) : 0;
  if (preAnswers < studyConfig.preExperiment.numCases) {
    throw conflict(
      'pre_experiment_incomplete',
      `${input.name} has ${preAnswers} of ${studyConfig.preExperiment.numCases} pre-experiment answers; register the pre-experiment first`,
    );
  }
  if (input.condition && existing?.condition && existing.condition !== input.condition) {
    throw conflict('condition_mismatch', `${input.name} is already in condition ${existing.condition}`);
  }
  const session = await syntheticParticipant(db, input.name, input.datasetType, now);
  if (input.condition) {
    await db.update(sessions).set({ condition: input.condition }).where(and(eq(sessions.sessionId, session.sessionId), isNull(sessions.condition)));
    // Another registration of the name may have drawn its condition meanwhile: then this one wrote nothing, and says so.
    const stored = await db.select({ condition: sessions.condition }).from(sessions).where(eq(sessions.sessionId, session.sessionId)).get();
    if (stored?.condition !== input.condition) throw conflict('condition_mismatch', `${input.name} is already in condition ${stored?.condition}`);
  }
  await trainUserModel(db, models, session, { force: false, now: new Date(now) });
  const condition = await assignCondition(db, { ...session, condition: input.condition ?? session.condition }, now);
  // As at a person's start: the AI they are shown is fixed before their set is drawn.
  await pinActiveAiModel(db, session.sessionId, session.datasetType);
  const { set } = await ensureMainCaseSet(db, models, session, condition, now);
  const expected = answerPlan(shapeOf(condition));
  if (input.alpha !== undefined && condition.shows === 'explanation') {
    await db
      .update(caseSetItems)
      .set({ alignmentAlpha: input.alpha })
      .where(and(eq(caseSetItems.sessionId, session.sessionId), eq(caseSetItems.phase, 'main_experiment')));
  }
  const random = seededRandom(seedOf(`main:${input.name}`));
  const base = studyConfig.mainExperiment.adminCaseNumberStart - 1;
  const details = [];
  let stored = 0;
  for (const item of set.slice(0, input.numResponses)) {
    const truth = item.row.groundTruth as 0 | 1;
    const own = (random() < input.accuracyRate ? truth : 1 - truth) as 0 | 1;
    // Under a time limit the case opened a while ago, now and then longer ago than the limit: its first judgement then ran out.
    const limit = timeLimitOf(condition);
    const openedFor = limit ? Math.round(2000 + random() * limit.ms * 1.25) : 0;
    if (limit) await keepProgress(db, session.sessionId, item.row.caseId, { opened: true }, new Date(Date.parse(now) - openedFor).toISOString());
    const ranOut = limit !== null && openedFor >= limit.ms;
    const initial = expected.initial
      ? { prediction: own, confidence: clamp(Math.round(2 + random() * 3), 1, 5), response_time_ms: Math.round(3000 + random() * 9000), reasoning: null, timed_out: ranOut }
      : null;
    // Served and recorded as a participant's page would have it served (carrying the initial judgement); the case is stored from that record.
    // On request, asked for on about two cases in three; after a forced wait, the initial judgement
    // is kept that long (and a few seconds more) before the serve, as a participant's would be.
    const asks = expected.ai !== 'none' && (!advisesOnRequest(condition) || random() < REQUEST_SHARE);
    const wait = adviceWaitMsOf(condition);
    if (asks && initial && wait > 0) {
      const keptAt = new Date(Date.parse(now) - wait - Math.round(1000 + random() * 7000)).toISOString();
      await keepProgress(db, session.sessionId, item.row.caseId, { initial }, keptAt);
    }
    const shown = asks ? await serveRegisteredCase(db, models, session.sessionId, item.row.caseId, now, initial) : null;
    const final = shown && own !== shown.prediction && random() < 0.5 ? shown.prediction : own;
    const rate = () => clamp(Math.round(2 + random() * 3.4), 1, 5);
    const ratings = Object.fromEntries((shown || expected.ai === 'none' ? expected.ratings : []).map((k) => [k, rate()])) as Partial<Record<RatingItem, number>>;
    const body = {
      session_id: session.sessionId,
      case_id: item.row.caseId,
      ...(initial
        ? { initial_prediction: initial.prediction, initial_confidence: initial.confidence, initial_response_time_ms: initial.response_time_ms, initial_timed_out: initial.timed_out }
        : {}),
      ...(limit && !initial ? { final_timed_out: ranOut } : {}),
      final_prediction: final,
      final_confidence: clamp(Math.round(2 + random() * 3), 1, 5),
      final_response_time_ms: Math.round(2000 + random() * 6000),
      ...(shown
        ? {
            ai_prediction: shown.prediction,
            ai_model_prediction: shown.prediction,
            user_model_prediction: shown.user_model_prediction,
            ai_feature_importance: shown.ai_feature_importance,
            user_feature_importance: shown.user_feature_importance,
            shown_feature_importance: shown.shown_feature_importance,
            explanation_kind: shown.explanation_kind,
            ai_model_identifier: shown.model_identifier,
            user_model_identifier: shown.user_model_identifier,
            ai_probability: shown.ai_probability,
            user_model_probability: shown.user_model_probability,
            served_explanation_id: shown.served_explanation_id,
            explanation_viewing_time_ms: Math.round(4000 + random() * 12000),
          }
        : {}),
      ...ratings,
      total_task_time_ms: Math.round(15000 + random() * 30000),
    };
    const result = await storeIntegratedResponse(db, session.sessionId, body, now, base);
    if (!result.duplicate) stored++;
    const caseNumber = base + item.position + 1;
    const given = Object.values(ratings);
    details.push({
      case_number: caseNumber,
      case_id: `main_case_${caseNumber}`,
      original_case_id: item.row.caseId,
      initial_prediction: body.initial_prediction ?? null,
      initial_confidence: body.initial_confidence ?? null,
      final_prediction: final,
      final_confidence: body.final_confidence,
      avg_subjective_rating: given.length > 0 ? given.reduce((a, b) => a + b, 0) / given.length : null,
    });
  }
  // The participant's own first judgement: the initial one, or the only one where there is no other.
  const correct = details.filter((d, i) => (d.initial_prediction ?? d.final_prediction) === set[i]!.row.groundTruth).length;
  return { session, condition, stored, details, realisedAccuracy: details.length > 0 ? correct / details.length : 0 };
}

/** The share of cases on which a synthetic participant asks for the AI, where the condition gives it only on request. */
const REQUEST_SHARE = 2 / 3;

/** Serves one case of a registered participant's main set through the participants' own path. */
async function serveRegisteredCase(db: Db, models: R2Bucket, sessionId: string, caseId: string, now: string, initial: KeptJudgement | null) {
  const inputs = await explanationInputs(db, sessionId, caseId);
  if (!inputs.session || !inputs.caseRow || !inputs.setItem) throw new Error(`case ${caseId} is not in the main set of ${sessionId}`);
  return serveCase(db, models, { ...inputs, session: inputs.session, caseRow: inputs.caseRow }, { now, initial });
}
