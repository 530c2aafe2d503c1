import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { studyConfig } from '../../../worker/schemas/study-config';
import { WithScreenTexts } from '../../i18n/screen-texts';
import type { ProgressPhase } from './progress-bar';

/**
 * Why a participant was taken elsewhere than the page they opened: the phase they are in, and,
 * when the page they were taken to is not that phase's (the spec sends the main experiment's
 * early visitors to /), where to continue.
 */
export type SentBack = { reason: 'main_not_yet' | 'post_survey_not_yet'; phase: ProgressPhase; to?: { path: string; state: Record<string, unknown> } };

/** The phase a page of the study belongs to, for the notice. */
export const phaseOfPath = (path: string): ProgressPhase =>
  path.startsWith('/experiment/pre') ? 'pre_experiment' : path.startsWith('/experiment/main') ? 'main_experiment' : path.includes('post-survey') ? 'post_survey' : 'preparation';

/**
 * Says, in the participant's language, where they are and why they were brought here (navigation
 * state `sentBack`, which the layout reads); its words are the study screens' (the screen that sent
 * them has loaded them).
 */
export function SentBackNotice({ sentBack }: { sentBack: SentBack }) {
  // The layout's Suspense waits for the texts as it waits for this chunk.
  return (
    <WithScreenTexts>
      <SentBackText sentBack={sentBack} />
    </WithScreenTexts>
  );
}

function SentBackText({ sentBack }: { sentBack: SentBack }) {
  const { t } = useTranslation();
  return (
    <div className="notice notice-info sent-back" role="status" data-testid="sent-back">
      <p>{t(`sentBack.${sentBack.reason}`, { total: studyConfig.preExperiment.numCases, phase: t(`progress.phases.${sentBack.phase}`) })}</p>
      {sentBack.to ? (
        <Link className="button button-primary" to={sentBack.to.path} state={sentBack.to.state} replace>
          {t('sentBack.continue')}
        </Link>
      ) : null}
    </div>
  );
}
