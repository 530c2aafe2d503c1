import './admin.css';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { studyConfig } from '../../../worker/schemas/study-config';
import { paths } from '../../app/paths';
import { Card } from '../../components/ui/card';
import { StatusBadge } from '../../components/ui/status-badge';
import { api, unwrap } from '../../lib/api';
import { storedParticipant } from '../../lib/participant';
import { clearExperimentStorage } from '../../lib/storage-keys';
import { useAdminLogout } from './use-admin-auth';

type Progress = { pre: number; main: number; postDone: boolean };

/** The stored participant's progress from the server (the browser's copy may be stale). */
function useParticipantProgress(sessionId: string | null) {
  return useQuery({
    queryKey: ['admin', 'home-progress', sessionId],
    enabled: sessionId !== null,
    queryFn: async (): Promise<Progress> => {
      const id = sessionId!;
      const [existing, survey] = await Promise.all([
        unwrap(await api.api.experiments['check-existing'].$post({ json: { participant_name: id } })),
        unwrap(await api.api['post-survey'].check[':sessionId'].$get({ param: { sessionId: id } })),
      ]);
      return { pre: existing.preExperimentCount, main: existing.mainExperimentCount, postDone: survey.exists };
    },
  });
}

function ProgressBadge({ label, count, total }: { label: string; count: number; total: number }) {
  const { t } = useTranslation();
  const state = count >= total ? 'healthy' : count > 0 ? 'warning' : 'unknown';
  const text = count >= total ? t('admin.home.participant.done') : count > 0 ? t('admin.home.participant.partial', { count, total }) : t('admin.home.participant.notStarted');
  return (
    <span className="progress-badge">
      {label}: <StatusBadge state={state} label={text} />
    </span>
  );
}

/** Part 1 §2 home page: features, flow, this browser's participant, links, reset, logout. */
export function HomePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const logout = useAdminLogout();
  const [participant, setParticipant] = useState(storedParticipant);
  const [notice, setNotice] = useState<string | null>(null);
  const progress = useParticipantProgress(participant?.sessionId ?? null);
  const features = t('admin.home.features.items', { returnObjects: true }) as { title: string; body: string }[];
  const steps = t('admin.home.flow.steps', { returnObjects: true }) as string[];
  const backend = t('admin.home.backend.items', { returnObjects: true }) as string[];
  const { numCases: preTotal } = studyConfig.preExperiment;
  const mainTotal = studyConfig.mainExperiment.numCases;

  const reset = () => {
    if (!window.confirm(t('admin.home.resetConfirm'))) return;
    clearExperimentStorage(window.localStorage);
    setParticipant(null);
    setNotice(t('admin.home.resetDone'));
  };

  return (
    <div className="page home-page">
      <div className="page-heading">
        <h1>{t('admin.home.title')}</h1>
        <Button className="button" onPress={() => logout.mutate()}>
          {t('admin.auth.logout')}
        </Button>
      </div>
      <p>{t('admin.home.lead')}</p>
      {notice ? (
        <p role="status" className="notice notice-info">
          {notice}
        </p>
      ) : null}

      {participant ? (
        <Card title={t('admin.home.participant.title')} className="participant-info">
          <dl className="plain-list">
            <div>
              <dt>{t('admin.home.participant.name')}</dt>
              <dd>{participant.sessionId}</dd>
            </div>
            <div>
              <dt>{t('admin.home.participant.id')}</dt>
              <dd>{participant.userId ?? '—'}</dd>
            </div>
          </dl>
          {progress.isError ? (
            <p className="notice notice-error">{t('admin.home.participant.loadFailed', { message: progress.error.message })}</p>
          ) : progress.data ? (
            <p className="badge-list">
              <ProgressBadge label={t('admin.home.participant.pre')} count={progress.data.pre} total={preTotal} />
              <ProgressBadge label={t('admin.home.participant.main')} count={progress.data.main} total={mainTotal} />
              <ProgressBadge label={t('admin.home.participant.post')} count={progress.data.postDone ? 1 : 0} total={1} />
            </p>
          ) : null}
          {progress.data && progress.data.main >= mainTotal && !progress.data.postDone ? (
            <Button className="button button-primary" onPress={() => void navigate(paths.postSurvey)}>
              {t('admin.home.participant.toPostSurvey')}
            </Button>
          ) : null}
        </Card>
      ) : (
        // A researcher's browser usually holds no participant: that is no error (the spec's
        // setup-error screen is for a participant whose session is missing), so say how to get one.
        <Card title={t('admin.home.participant.title')} className="participant-info">
          <p data-testid="no-participant">{t('admin.home.participant.none')}</p>
          <div className="button-row">
            <Link className="button" to={paths.selection}>
              {t('admin.home.participant.join')}
            </Link>
            <Button className="button" onPress={() => setParticipant(storedParticipant())}>
              {t('common.refresh')}
            </Button>
          </div>
        </Card>
      )}
      <div className="button-row">
        <Button className="button button-danger" onPress={reset}>
          {t('admin.home.reset')}
        </Button>
      </div>

      <Card title={t('admin.home.links.title')}>
        <ul className="link-list">
          <li><Link to={paths.selection}>{t('admin.home.links.join')}</Link></li>
          <li><Link to={paths.pre}>{t('admin.home.links.pre')}</Link></li>
          <li><Link to={paths.main}>{t('admin.home.links.main')}</Link></li>
          <li><Link to={paths.status}>{t('admin.home.links.status')}</Link></li>
          <li><Link to={paths.admin}>{t('admin.home.links.admin')}</Link></li>
          <li><Link to={paths.modelVerification}>{t('admin.home.links.verification')}</Link></li>
        </ul>
      </Card>

      <Card title={t('admin.home.features.title')}>
        <div className="feature-grid">
          {features.map((f) => (
            <div key={f.title} className="feature-card">
              <h3>{f.title}</h3>
              <p>{f.body}</p>
            </div>
          ))}
        </div>
      </Card>
      <Card title={t('admin.home.flow.title')}>
        <ol>
          {steps.map((step) => (
            <li key={step}>{step}</li>
          ))}
        </ol>
      </Card>
      <Card title={t('admin.home.backend.title')}>
        <p className="badge-list">
          {backend.map((item) => (
            <StatusBadge key={item} state="unknown" label={item} />
          ))}
        </p>
      </Card>
    </div>
  );
}
