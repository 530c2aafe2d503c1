/**
 * How a finished case reaches the server: the integrated response of part 2 §3 built from the
 * case's record, kept in the participant's main-experiment outbox and sent until stored. The
 * understanding test's attempts travel the same way in their own outbox.
 */
import type { InferRequestType } from 'hono/client';
import type { MainCase } from '../../../worker/schemas/main-experiment';
import { api, unwrap } from '../../lib/api';
import { refusableSender } from '../../lib/refusal';
import { AnswerOutbox } from '../../lib/outbox';
import { storageKeys } from '../../lib/storage-keys';
import type { CaseRecord } from './case-flow-machine';
import { showsAiBaseline } from './explanation';

export type IntegratedResponse = InferRequestType<typeof api.api.experiments.main['integrated-response']['$post']>['json'];
export type TestAttempt = InferRequestType<typeof api.api.experiments.main['understanding-test']['$post']>['json'];

/** The case as the participant's condition recorded it: what was not shown or asked is left out. */
export function integratedResponse(sessionId: string, item: MainCase, record: CaseRecord): IntegratedResponse {
  const { initial, final, explanation: e } = record;
  return {
    session_id: sessionId,
    case_id: item.case_id,
    case_number: item.case_number,
    alignment_alpha: e?.alpha ?? null,
    ...(initial
      ? {
          initial_prediction: initial.prediction,
          initial_confidence: initial.confidence,
          initial_response_time_ms: initial.response_time_ms,
          initial_reasoning: initial.reasoning ?? null,
          ...(initial.timed_out ? { initial_timed_out: true } : {}),
        }
      : {}),
    final_prediction: final.prediction,
    final_confidence: final.confidence,
    final_response_time_ms: final.response_time_ms,
    final_reasoning: final.reasoning ?? null,
    ...(final.timed_out ? { final_timed_out: true } : {}),
    ...(e
      ? {
          ai_prediction: e.prediction,
          ai_model_prediction: e.prediction,
          user_model_prediction: e.userModelPrediction,
          ai_feature_importance: e.ai,
          user_feature_importance: e.user,
          shown_feature_importance: e.shown,
          explanation_kind: e.kind,
          ai_model_identifier: e.modelIdentifier,
          user_model_identifier: e.userModelIdentifier,
          ai_probability: e.aiProbability,
          user_model_probability: e.userModelProbability,
          ...(e.servedId === null ? {} : { served_explanation_id: e.servedId }),
          explanation_viewing_time_ms: record.explanationViewMs,
          ai_baseline_shown: showsAiBaseline(e),
          ai_confidence_shown: e.aiConfidence !== null,
          ai_accuracy_stated: e.statedAccuracy,
        }
      : {}),
    ...record.survey,
    total_task_time_ms: record.totalMs,
  };
}

export const mainOutbox = (sessionId: string) =>
  new AnswerOutbox<IntegratedResponse>(
    `${storageKeys.mainResponsesPrefix}${sessionId}`,
    refusableSender(async (json) => unwrap(await api.api.experiments.main['integrated-response'].$post({ json }))),
    (answer) => answer.case_id,
  );

/** `onScreenedOut` runs when the server says this attempt ended the study for a Prolific participant. */
export const testAttemptOutbox = (sessionId: string, onScreenedOut: () => void = () => undefined) =>
  new AnswerOutbox<TestAttempt>(
    `${storageKeys.testAttemptsPrefix}${sessionId}`,
    refusableSender(async (json) => {
      const result = await unwrap(await api.api.experiments.main['understanding-test'].$post({ json }));
      if (result.screened_out) onScreenedOut();
      return result;
    }),
    (attempt) => attempt.attempt_id,
  );
