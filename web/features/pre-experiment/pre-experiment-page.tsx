import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { studyConfig } from '../../../worker/schemas/study-config';
import type { ParticipantCase } from '../../../worker/schemas/experiment';
import { CaseCard } from '../../components/ui/case-card';
import { JudgementInput, type Judgement } from '../../components/ui/judgement-input';
import { ProgressBar } from '../../components/ui/progress-bar';
import { ResumePanel } from '../../components/ui/resume-panel';
import { ApiError, NetworkError } from '../../lib/api';
import { logger } from '../../lib/error-log';
import { userErrorMessage } from '../../lib/http-errors';
import { AnswerOutbox, type OutboxState, type RefusedAnswer } from '../../lib/outbox';
import { rememberParticipant, rememberUserModel, storedParticipant } from '../../lib/participant';
import type { ResumeData } from '../../lib/resume';
import { sessionKeys } from '../../lib/storage-keys';
import { answerSender, isRefusal, sendAll, trainUserModel } from './answer-sender';
import { CaseSetError, fetchTutorialCases, loadPreExperiment, type PreExperimentData } from './load';
import { TutorialDialog } from './tutorial-dialog';

type Screen =
  | { kind: 'loading' }
  | { kind: 'error'; messageKey: string; detail?: string }
  | { kind: 'intro' }
  | { kind: 'answering' }
  | { kind: 'sending'; offline: boolean; confirmed: number }
  | { kind: 'learning' }
  | { kind: 'complete'; trained: boolean; samples: number };

const TOTAL = studyConfig.preExperiment.numCases;
const RESEND_DELAY_MS = 2000;

const tutorialDone = () => sessionStorage.getItem(sessionKeys.preTutorialDone) === 'true';

function useOutboxState(outbox: AnswerOutbox | null): OutboxState | null {
  const cache = useRef<OutboxState | null>(null);
  const subscribe = useCallback(
    (onChange: () => void) => {
      cache.current = outbox?.state() ?? null;
      if (!outbox) return () => {};
      return outbox.subscribe((state) => {
        cache.current = state;
        onChange();
      });
    },
    [outbox],
  );
  return useSyncExternalStore(subscribe, () => (outbox ? (cache.current ??= outbox.state()) : null));
}

/** Answers the server refused for good, with its reasons: they have left the outbox. */
function RefusedAnswers({ refused }: { refused: readonly RefusedAnswer[] }) {
  const { t } = useTranslation();
  if (refused.length === 0) return null;
  return (
    <div className="notice notice-error" data-testid="refused-answers">
      <p>{t('pre.refused', { count: refused.length })}</p>
      <ul>
        {refused.map((r) => (
          <li key={r.case_id}>
            <code>{r.case_id}</code>: {r.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * `/experiment/pre`: intro and tutorial, then the 200 cases one by one. Every answer goes to the
 * browser outbox first; the completion screen appears only once the server confirms all of them,
 * then the participant's model is trained.
 */
export function PreExperimentPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const routeState = location.state as { participantName?: string; resumeData?: ResumeData } | null;
  const sessionId = routeState?.resumeData?.sessionId ?? routeState?.participantName ?? storedParticipant()?.sessionId ?? null;

  const [screen, setScreen] = useState<Screen>({ kind: 'loading' });
  const [data, setData] = useState<PreExperimentData | null>(null);
  const [outbox, setOutbox] = useState<AnswerOutbox | null>(null);
  const [answered, setAnswered] = useState<Set<string>>(new Set());
  const [transitioning, setTransitioning] = useState(false);
  const [tutorialOpen, setTutorialOpen] = useState(false);
  const [tutorialFinished, setTutorialFinished] = useState(tutorialDone);
  const [tutorialCases, setTutorialCases] = useState<ParticipantCase[] | null>(null);
  const shownAt = useRef(performance.now());
  const outboxState = useOutboxState(outbox);

  useEffect(() => {
    if (!sessionId) {
      setScreen({ kind: 'error', messageKey: 'resume.noParticipantName' });
      return;
    }
    let cancelled = false;
    const box = new AnswerOutbox(sessionId, answerSender(sessionId));
    setOutbox(box);
    loadPreExperiment(sessionId, routeState?.resumeData)
      .then((result) => {
        if (cancelled) return;
        if (result.kind === 'redirect') {
          void navigate(result.destination.path, { state: result.destination.state, replace: true });
          return;
        }
        const loaded = result.data;
        rememberParticipant({ sessionId: loaded.sessionId, userId: loaded.userId, datasetType: loaded.datasetType });
        box.acknowledge(loaded.serverAnswered);
        // Only cases of this set count as done; a stray saved answer is sent (and refused) but never skips a case.
        const inSet = new Set(loaded.cases.map((c) => c.case_id));
        const done = new Set([...loaded.serverAnswered, ...box.answers().map((a) => a.case_id)].filter((id) => inSet.has(id)));
        setData(loaded);
        setAnswered(done);
        void box.flush();
        if (done.size >= loaded.cases.length) setScreen({ kind: 'sending', offline: false, confirmed: 0 });
        else setScreen(done.size > 0 ? { kind: 'answering' } : { kind: 'intro' });
      })
      .catch((err: unknown) => {
        if (cancelled) return;
        logger.error('pre_experiment_load', 'pre-experiment could not load', { error: String(err) });
        setScreen({
          kind: 'error',
          detail: err instanceof ApiError || err instanceof NetworkError ? userErrorMessage(t, err) : undefined,
          messageKey:
            err instanceof CaseSetError
              ? 'pre.caseSetFailed'
              : err instanceof ApiError && err.status === 404
                ? 'pre.noDataset'
                : 'pre.datasetFetchFailed',
        });
      });
    return () => {
      cancelled = true;
      box.dispose();
    };
    // Load once per participant; route state is only read at that moment.
  }, [sessionId]);

  // The practice cases, also the intro's example, so it never shows (and primes) a real case.
  const datasetForTutorial = screen.kind === 'intro' ? data?.datasetType : undefined;
  useEffect(() => {
    if (!datasetForTutorial) return;
    let cancelled = false;
    fetchTutorialCases(datasetForTutorial)
      .then((cases) => !cancelled && setTutorialCases(cases))
      .catch((err: unknown) => {
        logger.error('tutorial', 'tutorial cases unavailable', { error: String(err) });
        if (!cancelled) setTutorialCases([]);
      });
    return () => {
      cancelled = true;
    };
  }, [datasetForTutorial]);

  const remaining = useMemo(() => (data ? data.cases.filter((c) => !answered.has(c.case_id)) : []), [data, answered]);
  const current = remaining[0] ?? null;

  useEffect(() => {
    shownAt.current = performance.now();
  }, [current?.case_id]);

  // Final phase: make sure the server holds every answer, then learn the participant's pattern.
  // One run spans both screens, so leaving "sending" for "learning" does not cancel it. It always
  // ends: only a network failure or a server error is retried; a refusal or a short count ends in
  // an error screen with resume, which leads back to the cases the server is missing.
  const finishing = screen.kind === 'sending' || screen.kind === 'learning';
  useEffect(() => {
    if (!finishing || !data || !outbox) return;
    let stopped = false;
    const fail = (messageKey: string, detail?: string) => {
      if (!stopped) setScreen({ kind: 'error', messageKey, detail });
    };
    const confirm = async () => {
      while (!stopped) {
        try {
          await outbox.flush();
          const { total, complete } = await sendAll(data.sessionId, outbox);
          if (complete) break;
          logger.production('pre_mismatch', `server holds ${total} of ${data.cases.length} answers`, {});
          return fail('pre.mismatch', t('pre.serverHolds', { count: total, total: data.cases.length }));
        } catch (err) {
          if (isRefusal(err)) {
            logger.production('final_send_refused', `the final send was refused: ${err.message}`, { status: err.status });
            return fail('pre.sendRefused', userErrorMessage(t, err));
          }
          logger.error('network', 'final send failed; retrying', { error: String(err) });
          if (!stopped) setScreen({ kind: 'sending', offline: err instanceof NetworkError, confirmed: 0 });
        }
        await new Promise((r) => setTimeout(r, RESEND_DELAY_MS));
      }
      if (stopped) return;
      setScreen({ kind: 'learning' });
      const model = await trainUserModel(data.sessionId, data.datasetType);
      rememberUserModel({ trained: model.trained, sessionId: data.sessionId, trainingSamples: model.samples });
      if (!stopped) setScreen({ kind: 'complete', trained: model.trained, samples: model.samples });
    };
    void confirm();
    return () => {
      stopped = true;
    };
  }, [finishing, data, outbox, t]);

  const submit = (judgement: Judgement) => {
    if (!data || !outbox || !current || transitioning) return;
    // The set has exactly TOTAL cases; nothing beyond it is accepted.
    if (answered.size >= Math.min(TOTAL, data.cases.length)) return;
    outbox.add({
      case_id: current.case_id,
      case_number: current.case_number,
      prediction: judgement.prediction,
      confidence: judgement.confidence,
      response_time_ms: Math.round(performance.now() - shownAt.current),
      ...(judgement.reasoning ? { reasoning: judgement.reasoning } : {}),
      answered_at: new Date().toISOString(),
    });
    setTransitioning(true);
    setTimeout(() => {
      const next = new Set(answered).add(current.case_id);
      setAnswered(next);
      setTransitioning(false);
      window.scrollTo(0, 0);
      if (next.size >= data.cases.length) setScreen({ kind: 'sending', offline: false, confirmed: next.size });
    }, studyConfig.timingsMs.betweenCases);
  };

  if (screen.kind === 'loading') return <p className="page">{t('common.loading')}</p>;

  if (screen.kind === 'error') {
    return (
      <div className="page pre-error" role="alert">
        <h1 className="error-title">{t('pre.errorTitle')}</h1>
        <p className="error-subtitle">{t('pre.errorSubtitle')}</p>
        <p className="error-message">{t(screen.messageKey)}</p>
        {screen.detail ? <p className="error-detail">{screen.detail}</p> : null}
        <RefusedAnswers refused={outboxState?.refused ?? []} />
        <section>
          <h2>{t('pre.resumeInline')}</h2>
          <ResumePanel initialId={sessionId ?? ''} />
          <Link to="/resume">{t('errors.display.resumePageLink')}</Link>
        </section>
        <p className="muted">{t('pre.contactAdmin')}</p>
      </div>
    );
  }

  if (!data) return null;
  const datasetType = data.datasetType;
  const doneCount = answered.size;

  if (screen.kind === 'intro') {
    return (
      <div className="page pre-intro">
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
          {tutorialCases && tutorialCases.length === 0 ? (
            <p className="notice notice-error">{t('pre.caseSetFailed')}</p>
          ) : (
            <CaseCard case={tutorialCases?.[0] ?? null} datasetType={datasetType} loading={!tutorialCases} heading={t('pre.exampleCase')} />
          )}
        </section>
        <section className="card">
          <h2>{t('pre.tutorialTitle')}</h2>
          <p>{t('pre.tutorialLead', { count: studyConfig.preExperiment.tutorialCases })}</p>
          {tutorialFinished ? <p className="badge badge-green">{t('pre.tutorialDone')}</p> : null}
          <div className="button-row">
            <Button className="button" onPress={() => setTutorialOpen(true)}>
              {t('pre.tutorialStart')}
            </Button>
            <Button
              className="button button-primary"
              isDisabled={!tutorialFinished}
              aria-describedby={tutorialFinished ? undefined : 'tutorial-required'}
              onPress={() => {
                window.scrollTo(0, 0);
                setScreen({ kind: 'answering' });
              }}
            >
              {t('pre.start')}
            </Button>
          </div>
          {tutorialFinished ? null : (
            <p id="tutorial-required" className="muted">
              {t('pre.tutorialRequired')}
            </p>
          )}
        </section>
        <TutorialDialog
          datasetType={datasetType}
          cases={tutorialCases}
          isOpen={tutorialOpen}
          onClose={() => setTutorialOpen(false)}
          onDone={() => {
            sessionStorage.setItem(sessionKeys.preTutorialDone, 'true');
            setTutorialFinished(true);
            setTutorialOpen(false);
          }}
        />
      </div>
    );
  }

  if (screen.kind === 'answering' && current) {
    return (
      <div className="page pre-case">
        <header className="case-progress">
          <h1>
            {data.resumed
              ? t('pre.remaining', { remaining: remaining.length, done: doneCount, total: data.cases.length })
              : t('pre.caseOf', { n: doneCount + 1, total: data.cases.length })}
          </h1>
          <ProgressBar phase="pre_experiment" value={doneCount} max={data.cases.length} />
          {outboxState && outboxState.pending > 1 ? <p className="notice notice-warning">{t('pre.pending', { count: outboxState.pending })}</p> : null}
          <RefusedAnswers refused={outboxState?.refused ?? []} />
        </header>
        <div className="case-layout">
          <CaseCard case={current} datasetType={datasetType} />
          <JudgementInput key={current.case_id} datasetType={datasetType} onSubmit={submit} disabled={transitioning} />
        </div>
      </div>
    );
  }

  if (screen.kind === 'sending' || screen.kind === 'learning' || screen.kind === 'answering') {
    return (
      <div className="page pre-sending" aria-busy="true">
        <h1>{screen.kind === 'learning' ? t('pre.learning') : t('pre.sendingTitle')}</h1>
        <ProgressBar phase="pre_experiment" value={doneCount} max={data.cases.length} />
        <p>{t('pre.sendingText')}</p>
        {screen.kind === 'sending' && screen.offline ? <p className="notice notice-warning">{t('pre.sendingOffline')}</p> : null}
        {outboxState ? <p className="muted">{t('pre.confirmed', { count: outboxState.total - outboxState.pending, total: data.cases.length })}</p> : null}
      </div>
    );
  }

  return (
    <div className="page pre-complete">
      <h1>{t('pre.completeTitle')}</h1>
      <ProgressBar phase="pre_experiment" value={data.cases.length} max={data.cases.length} />
      <p>{t('pre.completeText')}</p>
      <RefusedAnswers refused={outboxState?.refused ?? []} />
      <p className={screen.trained ? 'notice notice-info' : 'notice notice-warning'} data-testid="user-model-state">
        {screen.trained ? t('pre.learned', { count: screen.samples }) : t('pre.learningSkipped')}
      </p>
      <Button className="button button-primary" onPress={() => void navigate('/experiment/main', { state: { preExperimentCompleted: true, datasetType, sessionId: data.sessionId } })}>
        {t('pre.toMain')}
      </Button>
    </div>
  );
}
