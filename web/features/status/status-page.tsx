import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Card } from '../../components/ui/card';
import { StatusBadge } from '../../components/ui/status-badge';
import { configuredApiBase } from '../../lib/api';
import { ClientHealthCard } from './client-health-card';
import { statusCallTarget, useStatus } from './use-status';

function Row({ label, state, text, note }: { label: string; state: string; text: string; note?: string }) {
  return (
    <div className="status-row" data-component={label}>
      <dt>{label}</dt>
      <dd>
        <StatusBadge state={state} label={text} />
        {note ? <span className="status-note">{note}</span> : null}
      </dd>
    </div>
  );
}

export function StatusPage() {
  const { t, i18n } = useTranslation();
  const status = useStatus();
  const state = (value: string) => t(`status.states.${value}`, { defaultValue: value });
  const data = status.data;

  return (
    <div className="page status-page">
      <div className="page-heading">
        <h1>{t('status.title')}</h1>
        <Button className="button" onPress={() => void status.refetch()} isDisabled={status.isFetching}>
          {t('common.refresh')}
        </Button>
      </div>
      <p>{t('status.description')}</p>

      {status.isError ? (
        <p role="alert" className="notice notice-error">
          {t('status.unreachable')} <StatusBadge state="error" label={t('status.connectionError')} />
        </p>
      ) : null}

      <Card>
        <dl className="status-list">
          <Row label={t('status.components.frontend')} state="healthy" text={state('running')} />
          {data ? (
            <>
              <Row label={t('status.components.api')} state={data.api} text={state(data.api)} />
              <Row label={t('status.components.database')} state={data.database} text={state(data.database)} />
              <Row label={t('status.components.storage')} state={data.storage} text={state(data.storage)} />
              <Row
                label={t('status.components.cache')}
                state={data.redis}
                text={state(data.redis)}
                note={t('status.cacheNote')}
              />
              <Row label={t('status.components.mlPipeline')} state={data.ml_pipeline} text={state(data.ml_pipeline)} />
              <Row
                label={t('status.components.recruitment')}
                state={data.recruitment === 'open' ? 'healthy' : data.recruitment === 'paused' ? 'warning' : 'unknown'}
                text={t(`recruitment.status.${data.recruitment}`)}
              />
            </>
          ) : status.isError ? (
            <Row label={t('status.components.api')} state="error" text={t('status.connectionError')} />
          ) : (
            <Row label={t('status.components.api')} state="checking" text={state('checking')} />
          )}
        </dl>
        {data && Object.keys(data.ml_models).length > 0 ? (
          <>
            <h3>{t('status.mlModels')}</h3>
            <dl className="status-list">
              {Object.entries(data.ml_models).map(([dataset, modelState]) => (
                <Row
                  key={dataset}
                  label={t(`status.datasets.${dataset}`, { defaultValue: dataset })}
                  state={modelState}
                  text={state(modelState)}
                />
              ))}
            </dl>
          </>
        ) : null}
        {data ? (
          <p className="muted">
            {t('status.lastChecked', { time: new Date(data.checked_at).toLocaleString(i18n.language) })}
          </p>
        ) : null}
      </Card>

      <Card title={t('status.environment.title')} className="environment-card">
        <dl className="kv">
          <dt>{t('status.environment.configuredApi')}</dt>
          <dd>{configuredApiBase || t('status.environment.sameOrigin')}</dd>
          <dt>{t('status.environment.statusTarget')}</dt>
          <dd>
            <code>{statusCallTarget()}</code>
          </dd>
          {data ? (
            <>
              <dt>{t('status.environment.serverEnvironment')}</dt>
              <dd>{data.environment}</dd>
            </>
          ) : null}
        </dl>
      </Card>

      <ClientHealthCard />
    </div>
  );
}
