import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { Card } from '../../components/ui/card';
import { StatusBadge } from '../../components/ui/status-badge';
import { healthOf, RATE_WINDOWS_MINUTES, type HealthReport } from '../../lib/error-health';
import { errorLog } from '../../lib/error-log';

const subscribe = (onChange: () => void) => errorLog.subscribe(onChange);

/** The browser-side error log's health: score, rates per window, repeated errors and 24 h risk. */
export function ClientHealthCard() {
  const { t } = useTranslation();
  // Re-render whenever the log changes.
  useSyncExternalStore(subscribe, () => errorLog.version);
  const health: HealthReport = healthOf(errorLog);
  const tone = health.status === 'healthy' ? 'healthy' : health.status === 'degraded' ? 'warning' : 'error';
  return (
    <Card title={t('status.clientHealth.title')} className="client-health">
      <p>
        <StatusBadge state={tone} label={t(`status.clientHealth.statuses.${health.status}`)} />{' '}
        {t('status.clientHealth.score', { score: health.score })}
      </p>
      <p>{t('status.clientHealth.totalErrors', { count: health.totalErrors })}</p>
      <ul className="plain-list">
        {RATE_WINDOWS_MINUTES.map((minutes) => (
          <li key={minutes}>
            {t('status.clientHealth.rate', { minutes, rate: health.rates[minutes].toFixed(2) })}
          </li>
        ))}
      </ul>
      {health.repeatedTypes.map((r) => (
        <p key={r.type} className="notice notice-warning">
          {t('status.clientHealth.repeated', { type: r.type, count: r.count })}
        </p>
      ))}
      <p>
        {t('status.clientHealth.projection', { count: health.projected24h })} —{' '}
        {t(`status.clientHealth.risks.${health.risk}`)}
      </p>
    </Card>
  );
}
