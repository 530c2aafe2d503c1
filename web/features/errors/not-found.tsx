import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { storedParticipant } from '../../lib/participant';

const ResumePanel = lazy(() => import('../../components/ui/resume-panel').then((m) => ({ default: m.ResumePanel })));

/**
 * A page this build does not have: never a dead end. It offers the way home and to resume by ID
 * (pre-filled with this browser's participant), which takes a participant to where they stand.
 */
export function NotFound() {
  const { t } = useTranslation();
  const participant = storedParticipant();
  return (
    <div className="page not-found">
      <h1>{t('notFound.title')}</h1>
      <p>{t('notFound.message')}</p>
      <p className="button-row">
        <Link to="/" className="button button-primary">
          {t('notFound.home')}
        </Link>
      </p>
      <section className="card">
        <h2 className="card-title">{t('notFound.resumeTitle')}</h2>
        <p>{t('notFound.resumeText')}</p>
        <Suspense fallback={<p>{t('common.loading')}</p>}>
          <ResumePanel initialId={participant?.sessionId ?? ''} />
        </Suspense>
      </section>
      <p className="muted">
        <Link to="/status">{t('notFound.statusLink')}</Link>
      </p>
    </div>
  );
}
