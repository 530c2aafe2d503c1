import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import type { RefusedAnswer } from '../../lib/outbox';
import { ResumePanel } from './resume-panel';

/** Answers the server refused for good, with its reasons: they have left the outbox. */
export function RefusedAnswers({ refused, messageKey }: { refused: readonly RefusedAnswer[]; messageKey: string }) {
  const { t } = useTranslation();
  if (refused.length === 0) return null;
  return (
    <div className="notice notice-error" data-testid="refused-answers">
      <p>{t(messageKey, { count: refused.length })}</p>
      <ul>
        {refused.map((r) => (
          <li key={r.key}>
            <code>{r.key}</code>: {r.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * A phase's error screen: what failed, the answers refused meanwhile, and resuming by
 * participant ID (here, or on /resume), with the study's contact line.
 */
export function PhaseErrorScreen({
  className,
  title,
  subtitle,
  message,
  detail,
  refused,
  refusedKey,
  participantId,
}: {
  className: string;
  title: string;
  subtitle?: string;
  message: string;
  detail?: string;
  refused: readonly RefusedAnswer[];
  refusedKey: string;
  participantId: string | null;
}) {
  const { t } = useTranslation();
  return (
    <div className={`page ${className}`} role="alert">
      <h1 className="error-title">{title}</h1>
      {subtitle ? <p className="error-subtitle">{subtitle}</p> : null}
      <p className="error-message">{message}</p>
      {detail ? <p className="error-detail">{detail}</p> : null}
      <RefusedAnswers refused={refused} messageKey={refusedKey} />
      <section>
        <h2>{t('pre.resumeInline')}</h2>
        <ResumePanel initialId={participantId ?? ''} />
        <Link to="/resume">{t('errors.display.resumePageLink')}</Link>
      </section>
      <p className="muted">{t('pre.contactAdmin')}</p>
    </div>
  );
}
