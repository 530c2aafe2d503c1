/**
 * Where a returning participant stands (part 1 §3 "resume data", §4 destinations): phase, next
 * case, the stored case set and answers, completion flags, and integrity problems that must
 * block resuming (then the person joins again as a new participant).
 */
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { findAssignment, sessionProgress, type SessionRow } from '../db/queries/sessions';
import { preExperimentResponses } from '../db/schema';
import type { ResumeData } from '../schemas/experiment';
import { studyConfig } from '../schemas/study';
import { storedPreCaseSet, toParticipantCase } from './case-sets';

const PRE_TOTAL = studyConfig.preExperiment.numCases;
const MAIN_TOTAL = studyConfig.mainExperiment.numCases;

export async function buildResumeData(db: Db, session: SessionRow): Promise<ResumeData> {
  const [progress, set, answers, assignment] = await Promise.all([
    sessionProgress(db, session.sessionId),
    storedPreCaseSet(db, session.sessionId),
    db
      .select({
        case_id: preExperimentResponses.caseId,
        case_number: preExperimentResponses.caseNumber,
        prediction: preExperimentResponses.prediction,
        confidence: preExperimentResponses.confidence,
      })
      .from(preExperimentResponses)
      .where(eq(preExperimentResponses.sessionId, session.sessionId))
      .orderBy(asc(preExperimentResponses.caseNumber)),
    findAssignment(db, session.sessionId),
  ]);

  const problems: string[] = [];
  if (assignment && assignment.datasetType !== session.datasetType) {
    problems.push(`the session's dataset (${session.datasetType}) differs from its assignment (${assignment.datasetType})`);
  }
  if (progress.preCount > PRE_TOTAL) problems.push(`${progress.preCount} pre-experiment answers exceed ${PRE_TOTAL}`);
  const inSet = new Set(set.map((s) => s.row.caseId));
  if (set.length > 0 && answers.some((a) => !inSet.has(a.case_id))) problems.push('answers refer to cases outside the session case set');
  if (set.length > 0 && set.some((s) => s.row.datasetType !== session.datasetType)) problems.push('the case set belongs to another dataset');

  const preDone = progress.preCount >= PRE_TOTAL;
  const mainDone = progress.mainCount >= MAIN_TOTAL;
  let currentPhase: ResumeData['currentPhase'];
  let action: ResumeData['action'];
  let resumeUrl: string;
  if (progress.postSurveyDone) {
    currentPhase = 'completed';
    action = 'completed';
    resumeUrl = '/experiment/complete';
  } else if (session.screenedOutAt) {
    currentPhase = 'main_experiment';
    action = 'screened_out';
    resumeUrl = '/experiment/screened-out';
  } else if (!session.consentedAt) {
    currentPhase = 'consent';
    action = 'give_consent';
    resumeUrl = '/experiment/consent';
  } else if (mainDone) {
    currentPhase = 'main_experiment';
    action = 'start_post_survey';
    resumeUrl = '/experiment/post-survey';
  } else if (preDone) {
    currentPhase = 'main_experiment';
    action = 'start_main_experiment';
    resumeUrl = '/experiment/main';
  } else {
    currentPhase = 'pre_experiment';
    action = 'resume_pre_experiment';
    resumeUrl = '/experiment/pre';
  }
  const integrityError = problems.length > 0;
  const inPre = action === 'resume_pre_experiment';
  return {
    success: !integrityError,
    message: integrityError ? 'Data integrity problem: start again as a new participant' : `Resume: ${action}`,
    sessionId: session.sessionId,
    participantName: session.participantCode,
    userId: session.userId,
    currentPhase,
    action,
    nextCaseNumber: (inPre ? progress.preCount : progress.mainCount) + 1,
    preExperimentCount: progress.preCount,
    mainExperimentCount: progress.mainCount,
    remainingCases: inPre ? PRE_TOTAL - progress.preCount : Math.max(0, MAIN_TOTAL - progress.mainCount),
    caseSet: inPre ? set.map((s) => toParticipantCase(s.row, s.position + 1)) : [],
    existingResponses: inPre ? answers : [],
    isMainExperimentCompleted: mainDone,
    isPostSurveyCompleted: progress.postSurveyDone,
    integrityError,
    integrityMessage: integrityError ? problems.join('; ') : null,
    confirmedDatasetType: session.datasetType,
    userModelTrained: progress.userModelStatus === 'trained',
    resume_url: resumeUrl,
  };
}
