import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { Card } from '../../components/ui/card';
import { StudyContacts } from '../../components/ui/study-contacts';
import { storedParticipant } from '../../lib/participant';
import { ProlificButton } from './prolific-button';
import { useProlificStatus } from './use-prolific-status';

/**
 * `/experiment/screened-out`: a Prolific participant who failed the understanding test as often as
 * the study allows. The answers given so far stay stored; Prolific is told with the screen-out code.
 */
export function ScreenedOutPage() {
  const { t } = useTranslation();
  const state = useLocation().state as { sessionId?: string } | null;
  const sessionId = state?.sessionId ?? storedParticipant()?.sessionId ?? null;
  const status = useProlificStatus(sessionId);
  return (
    <div className="page screened-out-page">
      <h1>{t('prolific.screenedOutTitle')}</h1>
      <Card>
        <p>{t('prolific.screenedOut')}</p>
        {status?.screen_out_url ? <ProlificButton href={status.screen_out_url} label={t('prolific.screenOut')} note={t('prolific.screenOutNote')} /> : null}
        <p className="muted">{t('prolific.screenedOutContact')}</p>
        <StudyContacts />
      </Card>
    </div>
  );
}
