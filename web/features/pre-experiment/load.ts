/**
 * What the pre-experiment needs before the first case: the participant's stored case set, the
 * answers the server already has, and whether this participant belongs somewhere else now.
 */
import type { ParticipantCase } from '../../../worker/schemas/experiment';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { studyConfig } from '../../../worker/schemas/study-config';
import { api, unwrap } from '../../lib/api';
import { resolveDatasetType } from '../../lib/dataset-type';
import { fetchResume, resumeDestination, type ResumeData, type ResumeDestination } from '../../lib/resume';

export type PreExperimentData = {
  sessionId: string;
  userId: number;
  datasetType: DatasetType;
  cases: ParticipantCase[];
  serverAnswered: string[];
  /** Some answers existed before this visit: show remaining counts and skip the intro. */
  resumed: boolean;
};

export class CaseSetError extends Error {
  override readonly name = 'CaseSetError';
}

export async function loadPreExperiment(
  sessionId: string,
  given?: ResumeData,
): Promise<{ kind: 'ready'; data: PreExperimentData } | { kind: 'redirect'; destination: ResumeDestination }> {
  const resume = given?.sessionId === sessionId ? given : await fetchResume(sessionId);
  if (resume.action !== 'resume_pre_experiment') return { kind: 'redirect', destination: resumeDestination(resume) };
  if (!resume.success) throw new CaseSetError(resume.integrityMessage ?? resume.message);
  let cases = resume.caseSet;
  if (cases.length === 0) {
    try {
      const set = await unwrap(
        await api.api.experiments['case-sets'].fixed.$get({
          query: { participant_id: sessionId, num_cases: String(studyConfig.preExperiment.numCases), experiment_type: 'pre_experiment' },
        }),
      );
      cases = set.case_set;
    } catch (err) {
      throw new CaseSetError(err instanceof Error ? err.message : String(err));
    }
  }
  if (cases.length === 0) throw new CaseSetError('no cases in the pre-experiment set');
  // The server's confirmed type first, then the session ID, then the case fields (part 1 §4);
  // throws DatasetTypeError when it cannot be settled (or the debug helper forces it).
  const { datasetType } = resolveDatasetType({ stored: resume.confirmedDatasetType, sessionId, caseData: cases[0]?.features });
  return {
    kind: 'ready',
    data: {
      sessionId: resume.sessionId,
      userId: resume.userId,
      datasetType,
      cases,
      serverAnswered: resume.existingResponses.map((r) => r.case_id),
      resumed: resume.preExperimentCount > 0,
    },
  };
}

export async function fetchTutorialCases(datasetType: DatasetType): Promise<ParticipantCase[]> {
  const set = await unwrap(
    await api.api.experiments['case-sets'].fixed.$get({
      query: { experiment_type: 'tutorial', dataset_type: datasetType, num_cases: String(studyConfig.preExperiment.tutorialCases) },
    }),
  );
  return set.case_set;
}
