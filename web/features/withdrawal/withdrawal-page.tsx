import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { Card } from '../../components/ui/card';
import { ConfirmDialog } from '../../components/ui/confirm-dialog';
import { StudyContacts } from '../../components/ui/study-contacts';
import { api, ApiError, unwrap } from '../../lib/api';
import { logger } from '../../lib/error-log';
import { userErrorMessage } from '../../lib/http-errors';
import { storedParticipant } from '../../lib/participant';
import { isValidSessionId, normaliseParticipantId } from '../../lib/session-id';
import { clearExperimentStorage } from '../../lib/storage-keys';
import { ProlificButton } from '../prolific/prolific-button';

type Outcome = { kind: 'withdrawn'; returnUrl: string | null } | { kind: 'error'; message: string } | null;

/**
 * `/withdraw`: a participant withdraws from the study with their ID, reached from the entry,
 * resume and completion pages. A confirm dialog lists what is deleted; the server deletes it all
 * (D1 and R2) and keeps only the fact and time. This browser's copy of the participation goes too.
 */
export function WithdrawalPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const [typed, setTyped] = useState(() => normaliseParticipantId(params.get('participant_id') ?? storedParticipant()?.sessionId ?? ''));
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const valid = isValidSessionId(typed);

  const withdraw = async () => {
    setPending(true);
    try {
      const result = await unwrap(await api.api.experiments.withdraw.$post({ json: { participant_id: typed, confirm: true } }));
      if (storedParticipant()?.sessionId === typed) clearExperimentStorage(window.localStorage);
      setOutcome({ kind: 'withdrawn', returnUrl: result.return_url });
    } catch (err) {
      logger.error('withdrawal', 'withdrawal failed', { error: String(err) });
      const notFound = err instanceof ApiError && err.status === 404;
      setOutcome({ kind: 'error', message: notFound ? t('withdraw.notFound') : userErrorMessage(t, err) });
    } finally {
      setPending(false);
      setConfirming(false);
    }
  };

  if (outcome?.kind === 'withdrawn') {
    return (
      <div className="page withdrawal-page">
        <h1>{t('withdraw.doneTitle')}</h1>
        <Card>
          <p role="status" data-testid="withdrawal-done">
            {t('withdraw.done')}
          </p>
          {outcome.returnUrl ? <ProlificButton href={outcome.returnUrl} label={t('prolific.return')} note={t('prolific.returnNote')} /> : null}
          <p>
            <Link to="/">{t('withdraw.home')}</Link>
          </p>
        </Card>
      </div>
    );
  }

  return (
    <div className="page withdrawal-page">
      <h1>{t('withdraw.title')}</h1>
      <p className="lead">{t('withdraw.lead')}</p>
      {/* The way out comes first: a phone shows the field and its button without scrolling; the list follows, and the dialog repeats it. */}
      <Card>
        <form
          className="withdrawal-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (valid) setConfirming(true);
          }}
        >
          <label className="field">
            <span>{t('resume.idLabel')}</span>
            <input
              className="id-input"
              name="participant_id"
              value={typed}
              onChange={(e) => setTyped(normaliseParticipantId(e.target.value))}
              placeholder={t('resume.idPlaceholder')}
              autoComplete="off"
              aria-describedby="withdraw-id-hint"
            />
            <span id="withdraw-id-hint" className="muted">
              {t('resume.idHint')}
            </span>
          </label>
          {outcome?.kind === 'error' ? (
            <p role="alert" className="notice notice-error">
              {outcome.message}
            </p>
          ) : null}
          <p className="notice notice-warning">{t('withdraw.irreversible')}</p>
          <button type="submit" className="button button-danger" disabled={!valid || pending}>
            {t('withdraw.button')}
          </button>
        </form>
      </Card>
      <Card title={t('withdraw.whatTitle')}>
        <ul>
          {(t('withdraw.what', { returnObjects: true }) as string[]).map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      </Card>
      <Card title={t('withdraw.questionsTitle')}>
        <p>{t('withdraw.questions')}</p>
        <StudyContacts />
      </Card>
      <ConfirmDialog
        isOpen={confirming}
        isPending={pending}
        title={t('withdraw.confirmTitle')}
        body={t('withdraw.confirmBody', { id: typed })}
        confirmLabel={t('withdraw.confirm')}
        cancelLabel={t('withdraw.cancel')}
        onConfirm={() => void withdraw()}
        onCancel={() => setConfirming(false)}
      />
    </div>
  );
}
