import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { studyConfig } from '../../../worker/schemas/study-config';
import { CaseCard } from '../../components/ui/case-card';
import { JudgementInput } from '../../components/ui/judgement-input';
import { ProgressBar } from '../../components/ui/progress-bar';
import { NoParticipantHere } from '../../components/ui/no-participant';
import { PhaseErrorScreen, RefusedAnswers } from '../../components/ui/phase-error';
import { storedParticipant } from '../../lib/participant';
import type { ResumeData } from '../../lib/resume';
import { remainingCases, serverHeldCount } from './pre-experiment-machine';
import { TutorialDialog } from './tutorial-dialog';
import { MovedOnDialog } from '../../components/ui/moved-on-dialog';
import { useStudyMovedOn } from '../../lib/use-study-moved-on';
import { usePreExperiment } from './use-pre-experiment';

const TOTAL = studyConfig.preExperiment.numCases;

/**
 * `/experiment/pre`: intro and practice, then the 200 cases one by one, the final send, the
 * user-model learning and completion. It renders the screen of `pre-experiment-machine.ts`; the
 * transitions live there and the effects in `use-pre-experiment.ts`.
 */
export function PreExperimentPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const routeState = location.state as { participantName?: string; resumeData?: ResumeData } | null;
  const sessionId = routeState?.resumeData?.sessionId ?? routeState?.participantName ?? storedParticipant()?.sessionId ?? null;

  const { state, current, outboxState, submit, openTutorial, closeTutorial, finishTutorial, start } = usePreExperiment(sessionId, routeState?.resumeData);
  const { screen, data, tutorial } = state;
  const refused = outboxState?.refused ?? [];
  // Another tab or device may go further: this one then says so and goes there.
  const stale = useStudyMovedOn({
    sessionId: data?.sessionId ?? sessionId,
    phase: 'pre_experiment',
    path: '/experiment/pre',
    localCount: state.answered.size + (state.pausingAfter ? 1 : 0),
    active: screen.kind === 'intro' || screen.kind === 'answering',
  });
  const movedOnDialog = <MovedOnDialog movedOn={stale.movedOn} />;

  // A browser holding no participant ID: one message, and resuming by ID.
  if (!sessionId) return <NoParticipantHere className="pre-error" />;
  if (screen.kind === 'loading') return <p className="page">{t('common.loading')}</p>;

  if (screen.kind === 'error') {
    return (
      <PhaseErrorScreen
        className="pre-error"
        title={t('pre.errorTitle')}
        subtitle={t('pre.errorSubtitle')}
        message={t(screen.messageKey)}
        detail={screen.detail}
        refused={refused}
        refusedKey="pre.refused"
        participantId={sessionId}
      />
    );
  }

  if (!data) return null;
  const datasetType = data.datasetType;
  const doneCount = state.answered.size;

  if (screen.kind === 'intro') {
    return (
      <div className="page pre-intro">
        {movedOnDialog}
        <h1>{t('pre.title')}</h1>
        <ProgressBar phase="pre_experiment" value={0} max={TOTAL} />
        <p className="lead">{t('pre.introLead', { count: TOTAL })}</p>
        <section className="card">
          <h2>{t('pre.taskTitle')}</h2>
          <p>{t(`datasets.${datasetType}.summary`)}</p>
          <p>
            <strong>{t(`datasets.${datasetType}.task`)}</strong>
          </p>
          <p className="muted">{t('datasets.balanced')}</p>
          <h3>{t('pre.scaleTitle')}</h3>
          <p>{t('pre.scale', { count: TOTAL, minutes: studyConfig.preExperiment.estimatedMinutes })}</p>
        </section>
        <section className="card">
          <h2>{t('pre.exampleTitle')}</h2>
          {tutorial.cases && tutorial.cases.length === 0 ? (
            <p className="notice notice-error">{t('pre.caseSetFailed')}</p>
          ) : (
            <CaseCard case={tutorial.cases?.[0] ?? null} datasetType={datasetType} loading={!tutorial.cases} heading={t('pre.exampleCase')} />
          )}
        </section>
        <section className="card">
          <h2>{t('pre.tutorialTitle')}</h2>
          <p>{t('pre.tutorialLead', { count: studyConfig.preExperiment.tutorialCases })}</p>
          {tutorial.done ? (
            <p className="badge badge-green">{t('pre.tutorialDone')}</p>
          ) : (
            <p id="tutorial-required" className="muted">
              {t('pre.tutorialRequired')}
            </p>
          )}
        </section>
        <div className="button-row sticky-actions">
          <Button className={tutorial.done ? 'button' : 'button button-primary'} onPress={openTutorial}>
            {t('pre.tutorialStart')}
          </Button>
          <Button
            className={tutorial.done ? 'button button-primary' : 'button'}
            isDisabled={!tutorial.done}
            aria-describedby={tutorial.done ? undefined : 'tutorial-required'}
            onPress={start}
          >
            {t('pre.start')}
          </Button>
        </div>
        <TutorialDialog
          datasetType={datasetType}
          cases={tutorial.cases}
          isOpen={tutorial.open}
          onClose={closeTutorial}
          onDone={finishTutorial}
        />
      </div>
    );
  }

  if (screen.kind === 'answering' && current) {
    return (
      <div className="page pre-case">
        {movedOnDialog}
        <header className="case-progress">
          <h1>
            {data.resumed
              ? t('pre.remaining', { remaining: remainingCases(state).length, done: doneCount, total: data.cases.length })
              : t('pre.caseOf', { n: doneCount + 1, total: data.cases.length })}
          </h1>
          <ProgressBar phase="pre_experiment" value={doneCount} max={data.cases.length} />
          {outboxState && outboxState.pending > 1 ? <p className="notice notice-warning">{t('pre.pending', { count: outboxState.pending })}</p> : null}
          <RefusedAnswers refused={refused} messageKey="pre.refused" />
        </header>
        <div className="case-layout">
          <CaseCard case={current} datasetType={datasetType} />
          <JudgementInput key={current.case_id} datasetType={datasetType} onSubmit={submit} disabled={state.pausingAfter !== null} />
        </div>
      </div>
    );
  }

  if (screen.kind === 'sending' || screen.kind === 'learning' || screen.kind === 'answering') {
    return (
      <div className="page pre-sending" aria-busy="true">
        <h1>{screen.kind === 'learning' ? t('pre.learning') : t('pre.sendingTitle')}</h1>
        {/* While answers are on their way the bar shows what the server holds, as the line below it does. */}
        <ProgressBar phase="pre_experiment" value={outboxState ? serverHeldCount(state, outboxState.pending) : doneCount} max={data.cases.length} />
        <p>{t('pre.sendingText')}</p>
        {screen.kind === 'sending' && screen.offline ? <p className="notice notice-warning">{t('pre.sendingOffline')}</p> : null}
        {outboxState ? <p className="muted">{t('pre.confirmed', { count: serverHeldCount(state, outboxState.pending), total: data.cases.length })}</p> : null}
      </div>
    );
  }

  return (
    <div className="page pre-complete">
      <h1>{t('pre.completeTitle')}</h1>
      <ProgressBar phase="pre_experiment" value={data.cases.length} max={data.cases.length} />
      <p>{t('pre.completeText')}</p>
      <RefusedAnswers refused={refused} messageKey="pre.refused" />
      <p className={screen.trained ? 'notice notice-info' : 'notice notice-warning'} data-testid="user-model-state">
        {screen.trained ? t('pre.learned', { count: screen.samples }) : t('pre.learningSkipped')}
      </p>
      <Button className="button button-primary" onPress={() => void navigate('/experiment/main', { state: { preExperimentCompleted: true, datasetType, sessionId: data.sessionId } })}>
        {t('pre.toMain')}
      </Button>
    </div>
  );
}
