import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ResumePanel } from '../../components/ui/resume-panel';
import type { SetupErrorKind } from './start-participation';

/**
 * The experiment-setup error screen (part 1 §8): the kind's message, retry and back-home, the
 * note to contact the administrator, and a resume check for the participant's ID.
 */
export function SetupErrorScreen({
  kind,
  onRetry,
  onHome,
  participantId,
}: {
  kind: SetupErrorKind;
  onRetry: () => Promise<void>;
  onHome: () => void;
  participantId: string;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [retrying, setRetrying] = useState(false);
  const [retryFailed, setRetryFailed] = useState(false);
  return (
    <div className="page setup-error" role="alert" data-kind={kind}>
      <h1 className="error-title">{t('setupError.title')}</h1>
      <p className="error-message">{t(`setupError.kinds.${kind}`)}</p>
      {retryFailed ? <p className="notice notice-error">{t('setupError.retryFailed')}</p> : null}
      <div className="button-row">
        <Button
          className="button button-primary"
          isDisabled={retrying}
          onPress={async () => {
            setRetrying(true);
            await onRetry();
            setRetryFailed(true);
            setRetrying(false);
          }}
        >
          {t('common.retry')}
        </Button>
        <Button
          className="button"
          onPress={() => {
            onHome();
            void navigate('/');
          }}
        >
          {t('common.home')}
        </Button>
      </div>
      <p className="muted">{t('setupError.note')}</p>
      <section>
        <h2>{t('resume.title')}</h2>
        <ResumePanel initialId={participantId} />
      </section>
    </div>
  );
}
