/**
 * How answers reach the server: one call per answer from the outbox, and the final full send
 * that confirms the server holds every answer of the set.
 */
import type { DatasetType } from '../../../worker/schemas/study-config';
import { api, unwrap } from '../../lib/api';
import { refusableSender } from '../../lib/refusal';
import type { AnswerOutbox, OutboxAnswer } from '../../lib/outbox';

/** Sends one answer; a refusal means the server will never take it. */
export function answerSender(sessionId: string) {
  return refusableSender(async (answer: OutboxAnswer) =>
    unwrap(
      await api.api.experiments['pre-experiment'].responses.$post({
        json: {
          session_id: sessionId,
          case_id: answer.case_id,
          case_number: answer.case_number,
          prediction: answer.prediction,
          confidence: answer.confidence,
          response_time_ms: answer.response_time_ms,
          reasoning: answer.reasoning,
        },
      }),
    ),
  );
}

/** Sends every saved answer again in one call; returns how many the server now holds. */
export async function sendAll(sessionId: string, outbox: AnswerOutbox): Promise<{ total: number; complete: boolean }> {
  const answers = outbox.answers();
  if (answers.length === 0) {
    const info = await unwrap(await api.api.experiments.sessions[':sessionId'].$get({ param: { sessionId } }));
    return { total: info.pre_experiment_count, complete: info.current_phase !== 'consent' && info.current_phase !== 'pre_experiment' };
  }
  const result = await unwrap(
    await api.api.experiments['pre-experiment'].responses.batch.$post({
      json: {
        session_id: sessionId,
        responses: answers.map((a) => ({
          case_id: a.case_id,
          case_number: a.case_number,
          prediction: a.prediction,
          confidence: a.confidence,
          response_time_ms: a.response_time_ms,
          reasoning: a.reasoning,
        })),
      },
    }),
  );
  outbox.acknowledge(answers.map((a) => a.case_id));
  return { total: result.total_responses, complete: result.complete };
}

/** Trains the participant's model; any failure only means learning is skipped. */
export async function trainUserModel(sessionId: string, datasetType: DatasetType) {
  try {
    const result = await unwrap(await api.api['user-model'].train.$post({ json: { session_id: sessionId, dataset_type: datasetType } }));
    return { trained: result.status === 'trained', samples: result.training_samples };
  } catch {
    return { trained: false, samples: 0 };
  }
}
