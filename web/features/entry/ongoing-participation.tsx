import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { checkExisting } from '../../lib/check-existing';
import { logger } from '../../lib/error-log';
import { userErrorMessage } from '../../lib/http-errors';
import type { StoredParticipant } from '../../lib/participant';

/**
 * The entry page's panel for the participation this browser holds: in progress (continue it, or
 * start over with a new ID), or over (completed, or screened out), as the server says.
 */
export function OngoingParticipation({ ongoing, onStartOver }: { ongoing: StoredParticipant; onStartOver: () => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [continuing, setContinuing] = useState(false);
  const [continueError, setContinueError] = useState<string | null>(null);
  // Whether the stored participation is over (completed, or screened out): then it is not "in progress".
  const [ended, setEnded] = useState<'completed' | 'screened_out' | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    checkExisting(ongoing.sessionId, controller.signal)
      .then((check) => setEnded(check.isCompleted ? 'completed' : check.isScreenedOut ? 'screened_out' : null))
      .catch(() => undefined);
    return () => controller.abort();
  }, [ongoing.sessionId]);

  const continueOngoing = async () => {
    setContinuing(true);
    setContinueError(null);
    try {
      const { continueParticipation } = await import('./joining');
      const destination = await continueParticipation(ongoing.sessionId);
      void navigate(destination.path, { state: destination.state });
    } catch (err) {
      logger.error('continue_participation', 'participation in progress could not be continued', { error: String(err) });
      setContinueError(userErrorMessage(t, err));
      setContinuing(false);
    }
  };

  return (
    <div className="ongoing-participation" data-testid="ongoing-participation">
      <h2>{t(ended === 'completed' ? 'entry.completedTitle' : ended === 'screened_out' ? 'entry.endedTitle' : 'entry.ongoingTitle')}</h2>
      <p>{t(ended === 'completed' ? 'entry.completedText' : ended === 'screened_out' ? 'resume.screenedOut' : 'entry.ongoingText')}</p>
      <dl className="kv">
        <dt>{t('entry.yourId')}</dt>
        <dd>
          <output className="participant-id participant-id-small">{ongoing.sessionId}</output>
        </dd>
        {ongoing.datasetType ? (
          <>
            <dt>{t('entry.datasetLabel')}</dt>
            <dd>{t(`datasets.${ongoing.datasetType}.name`)}</dd>
          </>
        ) : null}
      </dl>
      {continueError ? (
        <p role="alert" className="notice notice-error">
          {continueError}
        </p>
      ) : null}
      <div className="button-row">
        <button type="button" className="button button-primary" onClick={() => void continueOngoing()} disabled={continuing}>
          {continuing
            ? t('entry.starting')
            : t(ended === 'completed' ? 'resume.toCompletion' : ended === 'screened_out' ? 'resume.toScreenedOut' : 'entry.continueOngoing')}
        </button>
        <button type="button" className="button" onClick={onStartOver} disabled={continuing}>
          {t('entry.startOver')}
        </button>
      </div>
    </div>
  );
}
