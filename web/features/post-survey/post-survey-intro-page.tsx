import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { studyConfig } from '../../../worker/schemas/study-config';
import { ProgressBar } from '../../components/ui/progress-bar';

/**
 * `/experiment/post-survey-intro` (part 2 §2.3): thanks for the main experiment and the way on to
 * the post-survey. Reached only from the main experiment's completion, with the session ID in
 * the route state; without one it redirects to /introduction.
 */
export function PostSurveyIntroPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const state = useLocation().state as { sessionId?: string } | null;
  const sessionId = state?.sessionId;
  if (!sessionId) return <Navigate to="/introduction" replace />;
  return (
    <div className="page post-survey-intro">
      <h1>{t('postSurveyIntro.title')}</h1>
      <ProgressBar phase="post_survey" value={0} max={1} />
      <p className="lead">{t('postSurveyIntro.thanks')}</p>
      <section className="card">
        <h2>{t('postSurveyIntro.nextTitle')}</h2>
        <p>{t('postSurveyIntro.next', { minutes: studyConfig.postSurvey.estimatedMinutes })}</p>
      </section>
      <div className="button-row sticky-actions">
        <Button className="button button-primary" onPress={() => void navigate('/experiment/post-survey', { state: { sessionId, fromMainExperiment: true } })}>
          {t('postSurveyIntro.start')}
        </Button>
      </div>
    </div>
  );
}
