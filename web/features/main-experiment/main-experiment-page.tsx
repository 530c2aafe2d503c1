import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { studyConfig } from '../../../worker/schemas/study-config';
import { ProgressBar } from '../../components/ui/progress-bar';
import { NoParticipantHere } from '../../components/ui/no-participant';
import { PhaseErrorScreen, RefusedAnswers } from '../../components/ui/phase-error';
import { storedParticipant } from '../../lib/participant';
import { useDebugTools } from '../../lib/use-debug-tools';
import type { ResumeData } from '../../lib/resume';
import { CaseFlow } from './case-flow';
import { OutcomeFeedback } from './outcome-feedback';
import { flowTextKeys, introLeadKey, needsPreparation, planOf, practicePlanOf } from './condition-plan';
import { canStart, remainingCases, type MainSummary } from './main-experiment-machine';
import { PracticeDialog } from './practice-dialog';
import { UnderstandingTestDialog } from './understanding-test-dialog';
import { keptSteps } from './trial-progress';
import { MovedOnDialog } from '../../components/ui/moved-on-dialog';
import { useStudyMovedOn } from '../../lib/use-study-moved-on';
import { useMainExperiment } from './use-main-experiment';
import { incentiveText } from '../../lib/incentive';

const TOTAL = studyConfig.mainExperiment.numCases;

/**
 * What the page reads of its navigation state (part 2 §2.1). The rest of what callers pass
 * (dataset, startFromCase…) is settled by the server's start call instead: its stored set and
 * the cases it holds decide where the participant resumes.
 */
type RouteState = { sessionId?: string; resumeData?: ResumeData } | null;

function Summary({ summary, sessionId, judgedTwice }: { summary: MainSummary; sessionId: string; judgedTwice: boolean }) {
  const { t } = useTranslation();
  const ratings = Object.entries(summary.meanRatings).filter((e): e is [string, number] => e[1] !== null);
  return (
    <dl className="kv completion-summary" data-testid="main-summary">
      <dt>{t('main.complete.tasks')}</dt>
      <dd>{t('main.complete.tasksValue', { count: summary.completed, total: summary.total })}</dd>
      {/* Judgements change only where each case was judged twice. */}
      {judgedTwice ? (
        <>
          <dt>{t('main.complete.changes')}</dt>
          <dd>{t('main.complete.changesValue', { count: summary.judgementChanges })}</dd>
        </>
      ) : null}
      <dt>{t('main.complete.survey')}</dt>
      <dd>
        {ratings.length === 0
          ? t('common.unknown')
          : ratings.map(([item, mean]) => t('main.complete.ratingValue', { item: t(`main.survey.short.${item}`), value: mean.toFixed(1) })).join(' / ')}
      </dd>
      <dt>{t('main.complete.sessionId')}</dt>
      <dd>
        <code className="participant-id participant-id-small">{sessionId}</code>
      </dd>
    </dl>
  );
}

/**
 * `/experiment/main`: intro (with tutorial and understanding test where the participant's
 * condition shows explanations), the 50 cases in the condition's steps,
 * the final confirmation and the completion summary. It renders the screen of
 * `main-experiment-machine.ts`; transitions live there, effects in `use-main-experiment.ts`.
 */
export function MainExperimentPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const [search] = useSearchParams();
  const routeState = location.state as RouteState;
  const sessionId = routeState?.sessionId ?? routeState?.resumeData?.sessionId ?? storedParticipant()?.sessionId ?? null;
  const debugTools = useDebugTools(search.get('debug') === 'true' || search.get('tutorial') === 'true');

  if (debugTools === 'pending') return <p className="page">{t('common.loading')}</p>;
  return <MainExperimentScreens sessionId={sessionId} routeState={routeState} bypass={debugTools === 'on'} />;
}

function MainExperimentScreens({ sessionId, routeState, bypass }: { sessionId: string | null; routeState: RouteState; bypass: boolean }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const main = useMainExperiment({ sessionId, resumeData: routeState?.resumeData, bypass });
  const { state, current, outboxState } = main;
  const { screen, data } = state;
  const refused = outboxState?.refused ?? [];
  // Resuming from the failure screen starts the route afresh from the server's state.
  const resume = () => void navigate(location.pathname + location.search, { replace: true, state: { sessionId: data?.sessionId ?? sessionId, fromResume: true } });
  // Another tab or device may go further: this one then says so and goes there.
  const stale = useStudyMovedOn({
    sessionId: data?.sessionId ?? sessionId,
    phase: 'main_experiment',
    path: '/experiment/main',
    localCount: state.answered.size + (state.pausingAfter ? 1 : 0),
    active: !bypass && (screen.kind === 'intro' || screen.kind === 'case'),
  });
  const movedOnDialog = <MovedOnDialog movedOn={stale.movedOn} />;

  // A browser holding no participant ID: one message, and resuming by ID.
  if (!sessionId) return <NoParticipantHere className="main-error" />;
  if (screen.kind === 'loading') return <p className="page">{t('common.loading')}</p>;

  if (screen.kind === 'error') {
    return (
      <PhaseErrorScreen
        className="main-error"
        title={t('main.errorTitle')}
        message={t(screen.messageKey)}
        detail={screen.detail}
        refused={refused}
        refusedKey="main.refused"
        participantId={sessionId}
      />
    );
  }

  if (!data) return null;
  const { datasetType } = data;
  const done = state.answered.size;
  const plan = planOf(data.condition);
  const prepared = needsPreparation(data.condition);

  if (screen.kind === 'intro') {
    return (
      <div className="page main-intro">
        {movedOnDialog}
        <h1>{t('main.title')}</h1>
        <ProgressBar phase="main_experiment" value={0} max={TOTAL} />
        <p className="lead">{t(introLeadKey(plan), { count: TOTAL, minutes: studyConfig.mainExperiment.estimatedMinutes })}</p>
        <section className="card">
          {/* The spec's four-step design keeps its own heading. */}
          <h2>{plan.steps.length === 4 ? t('main.flowTitle') : t('main.flowTitleSteps')}</h2>
          <ol className="flow-steps">
            {plan.steps.map((step) => (
              <li key={step}>
                <strong>{t(`main.steps.${step}`)}</strong>
                <span className="muted"> — {flowTextKeys(step, plan).map((key) => t(key, { seconds: plan.waitMs / 1000 })).join(' ')}</span>
              </li>
            ))}
          </ol>
          <p>
            <strong>{t(`datasets.${datasetType}.task`)}</strong>
          </p>
        </section>
        {plan.timeLimit ? (
          <section className="card" data-testid="main-time-limit">
            <h2>{t('main.timeLimit.title')}</h2>
            <p>{t(`main.timeLimit.rule_${plan.timeLimit.onTimeout}`, { seconds: plan.timeLimit.ms / 1000 })}</p>
          </section>
        ) : null}
        {data.condition.incentive ? (
          <section className="card" data-testid="main-incentive">
            <h2>{t('incentive.title')}</h2>
            <p>{incentiveText(t, data.condition.incentive, i18n.language)}</p>
          </section>
        ) : null}
        {prepared ? (
          <section className="card preparation-steps">
            <h2>{t('main.preparationTitle')}</h2>
            <div className="preparation-row">
              <div>
                <h3>1. {t('main.tutorial.title')}</h3>
                <p className="muted">{t('main.tutorial.lead')}</p>
                {state.tutorial.done ? <p className="badge badge-green">{t('main.tutorial.done')}</p> : null}
              </div>
            </div>
            <div className="preparation-row">
              <div>
                <h3>2. {t('main.test.title')}</h3>
                <p className="muted">{t('main.test.lead', { count: studyConfig.mainExperiment.understandingTestQuestions })}</p>
                {state.test.passed ? <p className="badge badge-green">{t('main.test.passedBadge')}</p> : null}
              </div>
            </div>
            {canStart(state) ? null : (
              <p id="main-start-required" className="muted">
                {t('main.startRequired')}
              </p>
            )}
          </section>
        ) : null}
        {/* Tutorial, understanding test and start (part 2 §2.1) stay in view; the next one to do leads. */}
        <div className="button-row sticky-actions intro-actions">
          {prepared ? (
            <Button className={state.tutorial.done ? 'button' : 'button button-primary'} onPress={main.openTutorial}>
              {state.tutorial.done ? t('main.tutorial.again') : t('main.tutorial.start')}
            </Button>
          ) : null}
          {prepared && !state.test.passed ? (
            <Button className={state.tutorial.done ? 'button button-primary' : 'button'} onPress={main.openTest}>
              {t('main.test.start')}
            </Button>
          ) : null}
          <Button
            className={canStart(state) ? 'button button-primary intro-start' : 'button intro-start'}
            isDisabled={!canStart(state)}
            aria-describedby={canStart(state) ? undefined : 'main-start-required'}
            onPress={main.start}
          >
            {t('main.start')}
          </Button>
        </div>
        <PracticeDialog sessionId={data.sessionId} datasetType={datasetType} plan={practicePlanOf(plan)} isOpen={state.tutorial.open} onClose={main.closeTutorial} onDone={main.finishTutorial} />
        <UnderstandingTestDialog datasetType={datasetType} isOpen={state.test.open} onClose={main.closeTest} onAttempt={main.saveTestAttempt} onPass={main.passTest} />
      </div>
    );
  }

  if (screen.kind === 'case' && current) {
    const kept = data.inProgress.find((c) => c.case_id === current.case_id);
    const header = (
      <header className="case-progress">
        <h1>
          {data.resumed
            ? t('main.remaining', { remaining: remainingCases(state).length, done, total: data.cases.length })
            : t('pre.caseOf', { n: Math.min(done + 1, data.cases.length), total: data.cases.length })}
        </h1>
        <ProgressBar phase="main_experiment" value={done} max={data.cases.length} />
        {outboxState?.lastError && outboxState.pending > 0 ? (
          <p className="notice notice-warning" role="status" data-testid="save-failed">
            {t('main.saveFailed', { message: outboxState.lastError })} {t('pre.pending', { count: outboxState.pending })}
          </p>
        ) : null}
        <RefusedAnswers refused={refused} messageKey="main.refused" />
      </header>
    );
    return (
      <div className="page main-case">
        {movedOnDialog}
        <CaseFlow
          key={current.case_id}
          sessionId={data.sessionId}
          item={current}
          datasetType={datasetType}
          alpha={current.alignment_alpha}
          plan={plan}
          header={header}
          onDone={main.caseDone}
          onResume={resume}
          recorded={{ kept: kept ? keptSteps(kept) : null, onMovedOn: stale.told, first: done === 0 }}
          afterDone={
            plan.feedback && state.pausingAfter === current.case_id ? (
              <OutcomeFeedback sessionId={data.sessionId} caseId={current.case_id} datasetType={datasetType} stored={main.caseStored} onNext={main.nextCase} />
            ) : undefined
          }
        />
      </div>
    );
  }

  if (screen.kind === 'complete') {
    return (
      <div className="page main-complete">
        <h1>{t('main.complete.title')}</h1>
        <ProgressBar phase="main_experiment" value={TOTAL} max={TOTAL} />
        <p>{t('main.complete.text')}</p>
        <Summary summary={screen.summary} sessionId={data.sessionId} judgedTwice={plan.initial} />
        <div className="button-row sticky-actions">
          <Button
            className="button button-primary"
            onPress={() => void navigate('/experiment/post-survey-intro', { state: { sessionId: data.sessionId, datasetType, fromMainExperiment: true } })}
          >
            {t('main.complete.toPostSurvey')}
          </Button>
        </div>
      </div>
    );
  }

  // Finishing: every saved case is on its way; the database's count decides what comes next.
  return (
    <div className="page main-finishing" aria-busy="true">
      <h1>{t('pre.sendingTitle')}</h1>
      <ProgressBar phase="main_experiment" value={done} max={data.cases.length} />
      <p>{t('main.finishingText')}</p>
      {screen.kind === 'finishing' && screen.offline ? <p className="notice notice-warning">{t('pre.sendingOffline')}</p> : null}
      {outboxState ? <p className="muted">{t('pre.pending', { count: outboxState.pending })}</p> : null}
      <RefusedAnswers refused={refused} messageKey="main.refused" />
    </div>
  );
}
