/**
 * The registration tools' synthetic participants (part 2 §2.6, §7): created, consented and
 * answered through the same services as a real participant's calls, so what they exercise is the
 * study's own code. Answers are drawn from a generator seeded by the name, so registering the same
 * participant twice draws the same answers and a retry stores nothing twice.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { caseSetItems } from '../db/schema';
import { conflict } from '../errors';
import { seededRandom } from '../ml/random';
import type { DatasetType } from '../schemas/study';
import { CONSENT_ITEMS, studyConfig } from '../schemas/study';
import { ensurePreCaseSet, seedOf, storedPreCaseSet } from './case-sets';
import { recordConsent } from './consent';
import { explainCase } from './explanation';
import { ensureMainCaseSet } from './main-case-sets';
import { storeIntegratedResponse } from './main-responses';
import { countPreResponses, storePreAnswers } from './pre-experiment';
import { trainUserModel } from './user-model';
import { openSession } from './sessions';

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
  await ensurePreCaseSet(db, session.sessionId, input.datasetType, now);
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

export type MainRegistration = { name: string; datasetType: DatasetType; numResponses: number; accuracyRate: number; alpha?: number };

/**
 * Answers the first `numResponses` cases of the participant's main set with the explanation the
 * Worker computes for each (AI and, if trained, the participant's model). The initial judgement is
 * right with probability `accuracyRate`; where it disagrees with the AI it switches to the AI's
 * advice half the time. A given alpha becomes the alpha of every case of this synthetic set.
 * Cases are numbered 201–250 so they never pass for a person's.
 */
export async function registerMainResponses(db: Db, models: R2Bucket, input: MainRegistration, now: string) {
  const session = await syntheticParticipant(db, input.name, input.datasetType, now);
  // As for a person, the main experiment follows the whole pre-experiment (otherwise the funnel and
  // the data would show a state no participant can reach), and the participant's own model is
  // fitted on it first, so the cases get the alpha mix rather than the AI-only fallback.
  const preAnswers = await countPreResponses(db, session.sessionId);
  if (preAnswers < studyConfig.preExperiment.numCases) {
    throw conflict(
      'pre_experiment_incomplete',
      `${input.name} has ${preAnswers} of ${studyConfig.preExperiment.numCases} pre-experiment answers; register the pre-experiment first`,
    );
  }
  await trainUserModel(db, models, session, { force: false, now: new Date(now) });
  const { set } = await ensureMainCaseSet(db, session, now);
  if (input.alpha !== undefined) {
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
    const alpha = input.alpha ?? item.alpha;
    const explanation = await explainCase(db, models, { sessionId: session.sessionId, caseRow: item.row, alpha });
    const truth = item.row.groundTruth as 0 | 1;
    const initial = (random() < input.accuracyRate ? truth : 1 - truth) as 0 | 1;
    const final = initial !== explanation.prediction && random() < 0.5 ? explanation.prediction : initial;
    const rate = () => clamp(Math.round(2 + random() * 3.4), 1, 5);
    const body = {
      session_id: session.sessionId,
      case_id: item.row.caseId,
      initial_prediction: initial,
      initial_confidence: clamp(Math.round(2 + random() * 3), 1, 5),
      initial_response_time_ms: Math.round(3000 + random() * 9000),
      final_prediction: final,
      final_confidence: clamp(Math.round(2 + random() * 3), 1, 5),
      final_response_time_ms: Math.round(2000 + random() * 6000),
      ai_prediction: explanation.prediction,
      ai_model_prediction: explanation.prediction,
      user_model_prediction: explanation.user_model_prediction,
      ai_feature_importance: explanation.ai_feature_importance,
      user_feature_importance: explanation.user_feature_importance,
      shown_feature_importance: explanation.shown_feature_importance,
      explanation_kind: explanation.explanation_kind,
      ai_model_identifier: explanation.model_identifier,
      user_model_identifier: explanation.user_model_identifier,
      ai_probability: explanation.ai_probability,
      user_model_probability: explanation.user_model_probability,
      comprehensibility: rate(),
      transparency: rate(),
      satisfaction: rate(),
      trust: rate(),
      alignment: rate(),
      explanation_viewing_time_ms: Math.round(4000 + random() * 12000),
      total_task_time_ms: Math.round(15000 + random() * 30000),
    };
    const result = await storeIntegratedResponse(db, session.sessionId, body, now, base);
    if (!result.duplicate) stored++;
    const caseNumber = base + item.position + 1;
    details.push({
      case_number: caseNumber,
      case_id: `main_case_${caseNumber}`,
      original_case_id: item.row.caseId,
      initial_prediction: initial,
      initial_confidence: body.initial_confidence,
      final_prediction: final,
      final_confidence: body.final_confidence,
      avg_subjective_rating: (body.comprehensibility + body.transparency + body.satisfaction + body.trust + body.alignment) / 5,
    });
  }
  const correct = details.filter((d, i) => d.initial_prediction === set[i]!.row.groundTruth).length;
  return { session, stored, details, realisedAccuracy: details.length > 0 ? correct / details.length : 0 };
}
