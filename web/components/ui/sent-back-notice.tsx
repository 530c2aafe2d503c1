import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { studyConfig } from '../../../worker/schemas/study-config';
import type { ProgressPhase } from './progress-bar';

/** Why a participant was taken to where they are in the study instead of the page they opened. */
export type SentBack = { reason: 'main_not_yet' | 'post_survey_not_yet'; phase: ProgressPhase };

/** The phase a page of the study belongs to, for the notice. */
export const phaseOfPath = (path: string): ProgressPhase =>
  path.startsWith('/experiment/pre') ? 'pre_experiment' : path.startsWith('/experiment/main') ? 'main_experiment' : path.includes('post-survey') ? 'post_survey' : 'preparation';

/** Says, in the participant's language, where they are and why they were brought here (navigation state `sentBack`). */
export function SentBackNotice() {
  const { t } = useTranslation();
  const sentBack = (useLocation().state as { sentBack?: SentBack } | null)?.sentBack;
  if (!sentBack) return null;
  return (
    <p className="notice notice-info" role="status" data-testid="sent-back">
      {t(`sentBack.${sentBack.reason}`, { total: studyConfig.preExperiment.numCases, phase: t(`progress.phases.${sentBack.phase}`) })}
    </p>
  );
}
