/**
 * What the main experiment needs before its first case: the session's stored 50-case set (drawn
 * by the server on the first start, the same set on every resume) and which cases the database
 * already holds. The server checks that the pre-experiment is complete unless `bypass` is set.
 */
import type { MainCase } from '../../../worker/schemas/main-experiment';
import { studyConfig, type DatasetType } from '../../../worker/schemas/study-config';
import { api, ApiError, unwrap } from '../../lib/api';
import type { MainData } from './main-experiment-machine';

/** The server will not start the main experiment for this participant yet (no consent, or the pre-experiment is unfinished). */
export class NotReadyForMain extends Error {
  override readonly name = 'NotReadyForMain';
}

/** The participant was screened out (Prolific, understanding test failed too often): the main experiment is closed to them. */
export class ScreenedOut extends Error {
  override readonly name = 'ScreenedOut';
}

/** Under quotas, every condition had all its participants by the time this participant reached the main experiment. */
export class StudyFullAtMain extends Error {
  override readonly name = 'StudyFullAtMain';
}

export async function loadMainExperiment(
  sessionId: string,
  opts: { resuming: boolean; bypass: boolean },
): Promise<{ data: MainData; serverAnswered: string[]; completed: number }> {
  try {
    const started = await unwrap(
      await api.api.experiments.main.start.$post({
        query: {},
        json: {
          session_id: sessionId,
          // The spec asks for 100 on resume; the server answers with the stored 50.
          num_cases: opts.resuming ? studyConfig.mainExperiment.resumeRequestCases : studyConfig.mainExperiment.numCases,
          participant_id: sessionId,
          ...(opts.bypass ? { debug: true } : {}),
        },
      }),
    );
    return {
      data: {
        sessionId: started.session_id,
        datasetType: started.dataset_type,
        condition: started.condition,
        cases: started.case_set,
        resumed: started.completed_cases > 0 || started.cases_in_progress.length > 0,
        inProgress: started.cases_in_progress,
      },
      serverAnswered: started.answered_case_ids,
      completed: started.completed_cases,
    };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'screened_out') throw new ScreenedOut(err.message);
    if (err instanceof ApiError && err.code === 'study_full') throw new StudyFullAtMain(err.message);
    if (err instanceof ApiError && err.status === 409) throw new NotReadyForMain(err.message);
    throw err;
  }
}

export async function fetchMainSummary(sessionId: string) {
  const s = await unwrap(await api.api.experiments.main.summary[':sessionId'].$get({ param: { sessionId } }));
  return {
    completed: s.completed_cases,
    total: s.total_cases,
    complete: s.complete,
    judgementChanges: s.judgement_changes,
    finalAgreesWithAi: s.final_agrees_with_ai,
    meanRatings: s.mean_ratings,
  };
}

/** The tutorial's practice case (a case of the tutorial pool, never one of the participant's), shown at the default alpha. */
export async function fetchPracticeCase(datasetType: DatasetType): Promise<MainCase> {
  const set = await unwrap(
    await api.api.experiments['case-sets'].fixed.$get({ query: { experiment_type: 'tutorial', dataset_type: datasetType, num_cases: '1' } }),
  );
  const first = set.case_set[0];
  if (!first) throw new Error(`no practice case for ${datasetType}`);
  return { ...first, alignment_alpha: studyConfig.mainExperiment.fallbackAlpha };
}
