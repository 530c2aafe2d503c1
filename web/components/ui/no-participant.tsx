import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { ResumePanel } from './resume-panel';

/**
 * A phase's page opened in a browser that holds no participant ID (another device, cleared
 * storage, a bookmark): one message in the participant's words, resuming by the ID they noted
 * down, and the way in for a newcomer (issue #59, point 5).
 */
export function NoParticipantHere({ className, message }: { className: string; /** The page's own sentence for it, where the spec gives one. */ message?: string }) {
  const { t } = useTranslation();
  return (
    <div className={`page ${className}`} role="alert" data-testid="no-participant">
      <h1>{t('noParticipant.title')}</h1>
      <p className="error-message">{message ?? t('noParticipant.text')}</p>
      <section>
        <h2>{t('pre.resumeInline')}</h2>
        <ResumePanel initialId="" />
      </section>
      <p>
        <Link to="/">{t('noParticipant.home')}</Link>
      </p>
    </div>
  );
}
