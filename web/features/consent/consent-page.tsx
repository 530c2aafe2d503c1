import { useState } from 'react';
import { Button, Checkbox } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { CONSENT_ITEMS, studyConfig } from '../../../worker/schemas/study-config';
import { Card } from '../../components/ui/card';
import { StudyContacts } from '../../components/ui/study-contacts';
import { api, ApiError, unwrap } from '../../lib/api';
import { localeOf } from '../../lib/date-time';
import { logger } from '../../lib/error-log';
import { consentIncentiveText } from '../../lib/incentive';
import { storedParticipant } from '../../lib/participant';
import { useProlificStatus } from '../prolific/use-prolific-status';

type ConsentState = { datasetType?: string; participantName?: string; sessionId?: string } | null;

/** `/experiment/consent`: the study, its contacts and seven items that must all be agreed to. */
export function ConsentPage() {
  const { t, i18n } = useTranslation();
  // What the study's incentives are, as far as the consent can say before the condition is drawn.
  const bonus = consentIncentiveText(t, i18n.language);
  const navigate = useNavigate();
  const location = useLocation();
  const stored = storedParticipant();
  const routeState = location.state as ConsentState;
  const sessionId = routeState?.sessionId ?? stored?.sessionId ?? null;
  const [checked, setChecked] = useState<Record<string, boolean>>({});
  const [recording, setRecording] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // A Prolific participant who does not wish to take part returns the study there.
  const prolific = useProlificStatus(sessionId);

  if (!sessionId) return <Navigate to="/introduction" replace />;

  const allChecked = CONSENT_ITEMS.every((item) => checked[item]);
  const today = new Date().toLocaleDateString(localeOf(i18n.language), { year: 'numeric', month: 'long', day: 'numeric' });
  const researcher = studyConfig.contacts.find((c) => c.role === 'responsible_researcher');

  const agree = async () => {
    if (!allChecked) {
      setError(t('consent.incomplete'));
      return;
    }
    setRecording(true);
    setError(null);
    try {
      await unwrap(
        await api.api.consent.submit.$post({
          json: { session_id: sessionId, user_id: stored?.userId ?? undefined, consent_items: checked },
        }),
      );
      void navigate('/experiment/pre', { state: { datasetType: routeState?.datasetType ?? stored?.datasetType, participantName: sessionId } });
    } catch (err) {
      logger.error('consent', 'consent could not be recorded', { error: String(err) });
      // Known refusals have their own translated text; anything else shows the server's detail.
      const incomplete = err instanceof ApiError && err.code === 'consent_incomplete';
      setError(incomplete ? t('consent.incomplete') : err instanceof ApiError ? err.message : t('consent.failed'));
      setRecording(false);
    }
  };

  return (
    <div className="page consent-page">
      <h1>{t('consent.title')}</h1>
      <p className="muted">
        {t('consent.version', { version: studyConfig.consentVersion })} · {t('consent.participant', { id: sessionId })}
      </p>

      <Card title={t('consent.summaryTitle')}>
        <dl className="kv">
          <dt>{t('consent.summary.title')}</dt>
          <dd>{t('consent.summary.titleValue')}</dd>
          <dt>{t('consent.summary.researcher')}</dt>
          <dd>{researcher ? t('consent.person', { name: researcher.name, affiliation: researcher.affiliation }) : ''}</dd>
          <dt>{t('consent.summary.purpose')}</dt>
          <dd>{t('consent.summary.purposeValue')}</dd>
          <dt>{t('consent.summary.duration')}</dt>
          <dd>{t('consent.summary.durationValue', { minutes: studyConfig.totalMinutes })}</dd>
          <dt>{t('consent.summary.compensation')}</dt>
          <dd>{t('consent.summary.compensationValue', { amount: studyConfig.compensation.amount.toLocaleString() })}</dd>
          {bonus ? (
            <>
              <dt>{t('consent.summary.bonus')}</dt>
              <dd data-testid="consent-incentive">{bonus}</dd>
            </>
          ) : null}
        </dl>
      </Card>

      <Card title={t('consent.detailsTitle')}>
        <div className="consent-details" tabIndex={0}>
          {Object.entries(t('consent.sections', { returnObjects: true, years: studyConfig.retentionYearsAfterPublication }) as Record<string, { title: string; body: string }>).map(
            ([key, section]) => (
              <section key={key}>
                <h3>{section.title}</h3>
                <p>{section.body}</p>
              </section>
            ),
          )}
        </div>
      </Card>

      <Card title={t('consent.contactsTitle')}>
        <StudyContacts />
        <p>{t('consent.date', { date: today })}</p>
      </Card>

      <Card title={t('consent.itemsTitle')}>
        <div className="consent-items">
          {CONSENT_ITEMS.map((item) => (
            <Checkbox
              key={item}
              className="checkbox"
              isSelected={checked[item] ?? false}
              onChange={(selected) => {
                setChecked((c) => ({ ...c, [item]: selected }));
                setError(null);
              }}
            >
              {t(`consent.items.${item}`)}
            </Checkbox>
          ))}
        </div>
        {error ? (
          <p role="alert" className="notice notice-error">
            {error}
          </p>
        ) : null}
      </Card>
      <div className="button-row sticky-actions">
        <Button className="button" onPress={() => void navigate('/introduction')}>
          {t('consent.back')}
        </Button>
        <Button className="button button-primary" isDisabled={!allChecked || recording} onPress={() => void agree()}>
          {recording ? t('consent.recording') : t('consent.agree')}
        </Button>
      </div>
      {prolific?.return_url ? (
        <p className="muted">
          {t('prolific.declineNote')} <a href={prolific.return_url}>{t('prolific.return')}</a>
        </p>
      ) : null}
    </div>
  );
}
