import { useTranslation } from 'react-i18next';
import { StudyContacts } from '../../components/ui/study-contacts';
import { prolificParams } from '../../lib/prolific';
import type { Unavailability } from './start-participation';

/**
 * What a newcomer sees when the study admits nobody new (paused, closed, or every place taken): why, who to contact,
 * and for a Prolific participant the way back to Prolific. Nothing has been stored for them.
 */
export function StudyUnavailable({ status, prolificReturnUrl }: { status: Unavailability; prolificReturnUrl: string | null }) {
  const { t } = useTranslation();
  const fromProlific = prolificParams() !== null;
  return (
    <div className="study-unavailable" data-testid="study-unavailable" data-status={status}>
      <h2>{t(`recruitment.${status}.title`)}</h2>
      <p>{t(`recruitment.${status}.text`)}</p>
      {fromProlific && prolificReturnUrl ? (
        <>
          <p>{t('recruitment.prolificReturn')}</p>
          <p>
            <a className="button button-primary" href={prolificReturnUrl} data-testid="prolific-return">
              {t('recruitment.prolificReturnButton')}
            </a>
          </p>
        </>
      ) : null}
      <h3>{t('recruitment.contacts')}</h3>
      <StudyContacts />
    </div>
  );
}
