/**
 * The steps of a main-experiment case the server keeps before the case is stored (the initial
 * judgement where no AI follows it, the explanation's viewing time, the final judgement before the
 * questions), so a reload or another device resumes the case where it left. The initial judgement
 * before the AI travels with the request that reveals the AI (`explanation.ts`), and is sent on its
 * own where the AI is on request or follows a wait (whose time the server counts from it). A checkpoint that
 * does not arrive costs only the resume point: the stored case carries the same values.
 */
import type { InferRequestType } from 'hono/client';
import type { CaseInProgress } from '../../../worker/schemas/main-experiment';
import { api, unwrap } from '../../lib/api';
import { logger } from '../../lib/error-log';
import type { TimedJudgement } from '../../components/ui/judgement-input';
import type { KeptSteps } from './case-flow-machine';

export type TrialStep = InferRequestType<(typeof api.api.experiments.main)['trial-progress']['$post']>['json'];

/** Sends one step and returns what the server now keeps of the case; a failure is logged and rethrown (the caller tells a "study moved on" answer from the rest). */
export async function keepStep(step: TrialStep): Promise<CaseInProgress> {
  try {
    return (await unwrap(await api.api.experiments.main['trial-progress'].$post({ json: step }))).kept;
  } catch (err) {
    logger.error('trial_progress', `step ${step.step} of ${step.case_id} was not kept`, { error: String(err) });
    throw err;
  }
}

const judgement = (j: NonNullable<CaseInProgress['initial']>): TimedJudgement => ({
  prediction: j.prediction,
  confidence: j.confidence,
  response_time_ms: j.response_time_ms,
  ...(j.reasoning ? { reasoning: j.reasoning } : {}),
  ...(j.timed_out ? { timed_out: true } : {}),
});

/** What the start call says the server kept of a case, as the case flow resumes from it. */
export const keptSteps = (c: CaseInProgress): KeptSteps => ({
  initial: c.initial ? judgement(c.initial) : null,
  explanationViewMs: c.explanation_viewing_time_ms,
  final: c.final ? judgement(c.final) : null,
  adviceServed: c.advice_served,
  adviceWaitLeftMs: c.advice_wait_left_ms,
  stepTimeLeftMs: c.step_time_left_ms,
});
