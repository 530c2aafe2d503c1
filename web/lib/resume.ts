/**
 * Resuming by participant ID, implemented once for the entry page panel, /resume and the error
 * screens: the resume call and the destination order of part 1 §4 (the existence check before it
 * is check-existing.ts).
 */
import type { InferResponseType } from 'hono/client';
import { api, ApiError, unwrap } from './api';

const resumeCall = api.api.experiments.resume.$post;
export type ResumeData = InferResponseType<typeof resumeCall, 200>;

export const fetchResume = async (participantId: string): Promise<ResumeData> =>
  unwrap(await resumeCall({ json: { participant_name: participantId } }));

export type ResumeDestination = { path: string; state: Record<string, unknown> };

/** Resume data that cannot be followed: an integrity problem, or an action this client does not know. */
export class UnknownResumeAction extends Error {
  override readonly name = 'UnknownResumeAction';
  constructor(
    readonly reason: 'integrity' | 'unknown_action',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Part 1 §4, in order: post-survey done → complete; no consent yet → consent; main done or start_post_survey →
 * post-survey; start_main_experiment or main phase → main; resume_pre_experiment or pre phase →
 * pre; anything else fails. Resume data counts only when `success` is true.
 */
export function resumeDestination(data: ResumeData): ResumeDestination {
  if (!data.success) throw new UnknownResumeAction('integrity', data.integrityMessage ?? data.message);
  if (data.isPostSurveyCompleted) {
    return { path: '/experiment/complete', state: { fromResume: true, experimentCompleted: true, sessionId: data.sessionId } };
  }
  // Screened out by the understanding test: nothing to continue, the screen-out page (with Prolific's link).
  if (data.action === 'screened_out') return { path: '/experiment/screened-out', state: { sessionId: data.sessionId } };
  if (data.action === 'give_consent') {
    // No answer is accepted before consent: the participant consents first, then starts the pre-experiment.
    return { path: '/experiment/consent', state: { sessionId: data.sessionId, participantName: data.participantName, datasetType: data.confirmedDatasetType } };
  }
  if (data.isMainExperimentCompleted || data.action === 'start_post_survey') {
    return {
      path: '/experiment/post-survey',
      state: { fromResume: true, sessionId: data.sessionId, participantName: data.participantName, userId: data.userId },
    };
  }
  if (data.action === 'start_main_experiment' || data.currentPhase === 'main_experiment') {
    return {
      path: '/experiment/main',
      state: { resumeData: data, startFromCase: data.nextCaseNumber, fromResume: true, userModelTrained: data.userModelTrained },
    };
  }
  if (data.action === 'resume_pre_experiment' || data.currentPhase === 'pre_experiment') {
    return { path: '/experiment/pre', state: { resumeData: data, startFromCase: data.nextCaseNumber, fromResume: true } };
  }
  throw new UnknownResumeAction('unknown_action', `unknown resume action ${data.action}`);
}

/** i18n key for a failed resume call (part 1 §8 "Resume"). */
export function resumeErrorKey(err: unknown): string {
  if (err instanceof UnknownResumeAction) return err.reason === 'integrity' ? 'resume.integrity' : 'resume.unknownAction';
  if (err instanceof ApiError && err.status === 404) return 'resume.noData';
  if (err instanceof ApiError && err.status >= 500) return 'resume.serverError';
  return 'resume.failed';
}
