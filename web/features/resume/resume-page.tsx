import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { Card } from '../../components/ui/card';
import { ResumePanel } from '../../components/ui/resume-panel';
import { storedParticipant } from '../../lib/participant';

/** `/resume`: continue by participant ID (pre-filled from `?participant_id=` or this browser). */
export function ResumePage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const initial = params.get('participant_id') ?? storedParticipant()?.sessionId ?? '';
  return (
    <div className="page resume-page">
      <h1>{t('resume.pageTitle')}</h1>
      <p>{t('resume.pageLead')}</p>
      <Card>
        <ResumePanel initialId={initial} />
      </Card>
      <p className="muted">
        <Link to={initial ? `/withdraw?participant_id=${encodeURIComponent(initial)}` : '/withdraw'}>{t('withdraw.link')}</Link>
      </p>
    </div>
  );
}
