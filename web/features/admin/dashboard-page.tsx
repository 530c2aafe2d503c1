import './admin.css';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Checkbox, Tab, TabList, TabPanel, Tabs, type Key } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { studyConfig } from '../../../worker/schemas/study-config';
import { Card } from '../../components/ui/card';
import { api, unwrap } from '../../lib/api';
import { ActivityTab } from './activity-tab';
import { BonusesTab } from './bonuses-tab';
import { DashboardCharts } from './dashboard-charts';
import { ConsentTab, PostSurveyTab, ResponsesTab, UsersTab, type Banner } from './dashboard-tables';
import { CleanupTab, DebugToolsTab, RegistrationTab } from './dashboard-tools';
import { RecruitmentTab } from './recruitment-tab';
import { RelianceTab } from './reliance-tab';
import { StudyConfigTab } from './study-config-tab';
import { DatasetsTab } from './datasets-tab';
import { useAdminLogout } from './use-admin-auth';

const TABS = ['users', 'pre', 'main', 'reliance', 'recruitment', 'bonuses', 'consent', 'postSurvey', 'activity', 'studyConfig', 'datasets', 'debug', 'registration', 'cleanup'] as const;

/** Part 2 §2.6: header with refresh, banners, summary cards, charts, the eight tabs and the study configuration. */
export function DashboardPage() {
  const { t } = useTranslation();
  const logout = useAdminLogout();
  const client = useQueryClient();
  const [banners, setBanners] = useState<(Banner & { id: number })[]>([]);
  const [tab, setTab] = useState<Key>('users');
  const notify = (banner: Banner) => setBanners((list) => [...list.filter((b) => b.kind !== banner.kind), { ...banner, id: Date.now() }]);
  // One choice for every research figure on the page: the cards, the charts and the reliance tab.
  const [includeSynthetic, setIncludeSynthetic] = useState(false);
  // By default every participant with data counts, finished or not; this counts those who finished only.
  const [completedOnly, setCompletedOnly] = useState(false);
  const stats = useQuery({
    queryKey: ['admin', 'data', 'stats', includeSynthetic, completedOnly],
    queryFn: async ({ signal }) => {
      // The spec's 30 s limit on the dashboard's reads.
      const timeout = AbortSignal.timeout(studyConfig.timingsMs.adminFetchTimeout);
      const query = { include_synthetic: String(includeSynthetic) as 'true' | 'false', completed_only: String(completedOnly) as 'true' | 'false' };
      return unwrap(await api.api.admin.stats.$get({ query }, { init: { signal: AbortSignal.any([signal, timeout]) } }));
    },
    placeholderData: keepPreviousData,
  });
  const s = stats.data;
  // The tabs count what their tables list (everyone); the cards count the population of the figures.
  const counts: Record<string, number | undefined> = { users: s?.listed.users, pre: s?.listed.pre_experiment_responses, main: s?.listed.main_experiment_responses };
  const tabLabel = (id: (typeof TABS)[number]) =>
    id in counts ? t(`admin.dashboard.tabs.${id}`, { count: counts[id] ?? 0 }) : t(`admin.dashboard.tabs.${id}`);

  return (
    <div className="page admin-page">
      <div className="page-heading">
        <h1>{t('admin.dashboard.title')}</h1>
        <div className="button-row button-row-tight">
          <Button className="button" onPress={() => void client.invalidateQueries({ queryKey: ['admin', 'data'] })} isDisabled={stats.isFetching}>
            {t('admin.dashboard.refresh')}
          </Button>
          <Button className="button" onPress={() => logout.mutate()}>
            {t('admin.auth.logout')}
          </Button>
        </div>
      </div>
      {stats.isError ? (
        <p role="alert" className="notice notice-error">
          {t('admin.dashboard.loadFailed', { message: stats.error.message })}
        </p>
      ) : null}
      {banners.map((b) => (
        <div key={b.id} role={b.kind === 'error' ? 'alert' : 'status'} className={`notice banner notice-${b.kind === 'error' ? 'error' : 'success'}`}>
          <span>{b.text}</span>
          <Button className="button button-small" onPress={() => setBanners((list) => list.filter((x) => x.id !== b.id))}>
            {t('common.dismiss')}
          </Button>
        </div>
      ))}
      <div className="population-toggles">
        <Checkbox className="checkbox population-toggle" isSelected={includeSynthetic} onChange={setIncludeSynthetic} data-testid="include-synthetic">
          {t('admin.dashboard.includeSynthetic')}
        </Checkbox>
        <Checkbox className="checkbox population-toggle" isSelected={completedOnly} onChange={setCompletedOnly} data-testid="completed-only">
          {t('admin.dashboard.completedOnly')}
        </Checkbox>
      </div>
      <div className="summary-cards">
        <Card title={t('admin.dashboard.cards.users')}>
          <p className="summary-value" data-summary="users">{s?.total_users ?? '—'}</p>
        </Card>
        <Card title={t('admin.dashboard.cards.responses')}>
          <p className="summary-value" data-summary="responses">{s?.total_responses ?? '—'}</p>
        </Card>
        <Card title={t('admin.dashboard.cards.today')}>
          <p className="summary-value">{s?.responses_today ?? '—'}</p>
        </Card>
        <Card title={t('admin.dashboard.cards.week')}>
          <p className="summary-value">{s?.responses_this_week ?? '—'}</p>
        </Card>
        <Card title={t('admin.dashboard.cards.withdrawals')}>
          <p className="summary-value" data-summary="withdrawals">{s?.withdrawals ?? '—'}</p>
        </Card>
        <Card title={t('admin.dashboard.cards.screenedOut')}>
          <p className="summary-value">{s?.screened_out ?? '—'}</p>
        </Card>
      </div>
      {s ? <DashboardCharts stats={s} /> : null}
      {/* Each tab mounts afresh when chosen, so its page number starts at the first page (part 2 §2.6). */}
      <Tabs selectedKey={tab} onSelectionChange={setTab} className="admin-tabs">
        <div className="tab-scroll">
          <TabList aria-label={t('admin.dashboard.title')} className="tab-list">
            {TABS.map((id) => (
              <Tab key={id} id={id} className="tab">
                {tabLabel(id)}
              </Tab>
            ))}
          </TabList>
        </div>
        <TabPanel id="users">
          <UsersTab notify={notify} />
        </TabPanel>
        <TabPanel id="pre">
          <ResponsesTab phase="pre_experiment" notify={notify} />
        </TabPanel>
        <TabPanel id="main">
          <ResponsesTab phase="main_experiment" notify={notify} />
        </TabPanel>
        <TabPanel id="reliance">
          <RelianceTab notify={notify} includeSynthetic={includeSynthetic} completedOnly={completedOnly} />
        </TabPanel>
        <TabPanel id="recruitment">
          <RecruitmentTab notify={notify} />
        </TabPanel>
        <TabPanel id="bonuses">
          <BonusesTab notify={notify} />
        </TabPanel>
        <TabPanel id="consent">
          <ConsentTab notify={notify} />
        </TabPanel>
        <TabPanel id="postSurvey">
          <PostSurveyTab notify={notify} />
        </TabPanel>
        <TabPanel id="activity">
          <ActivityTab />
        </TabPanel>
        <TabPanel id="studyConfig">
          <StudyConfigTab />
        </TabPanel>
        <TabPanel id="datasets">
          <DatasetsTab />
        </TabPanel>
        <TabPanel id="debug">
          <DebugToolsTab notify={notify} />
        </TabPanel>
        <TabPanel id="registration">
          <RegistrationTab notify={notify} />
        </TabPanel>
        <TabPanel id="cleanup">
          <CleanupTab notify={notify} />
        </TabPanel>
      </Tabs>
    </div>
  );
}
