/**
 * The main experiment's side effects around its state machine: starting (the stored set and the
 * answers the server holds), the outboxes of finished cases and test attempts, the spec's 800 ms
 * pause between cases, and the final confirmation that the database holds all 50 cases.
 * Everything it learns it dispatches as an event of `main-experiment-machine.ts`.
 */
import { useEffect, useReducer, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { studyConfig } from '../../../worker/schemas/study-config';
import { ApiError, NetworkError } from '../../lib/api';
import { logger } from '../../lib/error-log';
import { userErrorMessage } from '../../lib/http-errors';
import type { AnswerOutbox } from '../../lib/outbox';
import { rememberParticipant } from '../../lib/participant';
import { fetchResume, resumeDestination, type ResumeData } from '../../lib/resume';
import { phaseOfPath, type SentBack } from '../../components/ui/sent-back-notice';
import { sessionKeys } from '../../lib/storage-keys';
import { useBetweenCasesPause } from '../../lib/use-between-cases-pause';
import { useOutboxState } from '../../lib/use-outbox-state';
import type { CaseRecord } from './case-flow-machine';
import { fetchMainSummary, loadMainExperiment, NotReadyForMain, ScreenedOut, StudyFullAtMain } from './load';
import { currentCase, initialMainState, mainReducer } from './main-experiment-machine';
import { integratedResponse, mainOutbox, testAttemptOutbox, type IntegratedResponse, type TestAttempt } from './response-sender';

/** How long the final confirmation waits before trying again. */
const RECHECK_DELAY_MS = 2000;

/** Tutorial and test are done once per tab (part 2 §2.1: session-only flags). */
const flagInTab = (key: string) => sessionStorage.getItem(key) === 'true';

export function useMainExperiment(input: { sessionId: string | null; resumeData?: ResumeData; bypass: boolean }) {
  const { sessionId, resumeData, bypass } = input;
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [state, dispatch] = useReducer(mainReducer, undefined, () =>
    initialMainState({ tutorialDone: flagInTab(sessionKeys.mainTutorialDone), testPassed: flagInTab(sessionKeys.mainTestPassed) }),
  );
  const [outbox, setOutbox] = useState<AnswerOutbox<IntegratedResponse> | null>(null);
  const [attempts, setAttempts] = useState<AnswerOutbox<TestAttempt> | null>(null);
  const outboxState = useOutboxState(outbox);
  const current = currentCase(state);

  useEffect(() => {
    if (!sessionId) {
      dispatch({ type: 'load_failed', messageKey: 'resume.noParticipantName' });
      return;
    }
    let cancelled = false;
    const box = mainOutbox(sessionId);
    const screenedOut = () => void navigate('/experiment/screened-out', { replace: true, state: { sessionId } });
    const attemptBox = testAttemptOutbox(sessionId, screenedOut);
    setOutbox(box);
    setAttempts(attemptBox);
    void attemptBox.flush();
    // Not in the main experiment yet (the pre-experiment unfinished, no consent): redirected to /
    // (part 2 §2.1), told where they are and why, with the way on, before the start is even asked
    // (it would refuse).
    const sentBackTo = async (): Promise<boolean> => {
      if (bypass) return false;
      const destination = await fetchResume(sessionId).then(resumeDestination, () => null);
      if (!destination || destination.path === '/experiment/main' || destination.path === '/experiment/post-survey') return false;
      const sentBack: SentBack = { reason: 'main_not_yet', phase: phaseOfPath(destination.path), to: destination };
      if (!cancelled) void navigate('/', { replace: true, state: { sentBack } });
      return true;
    };
    void (async () => {
      try {
        if (await sentBackTo()) return;
        const { data, serverAnswered, completed } = await loadMainExperiment(sessionId, { resuming: Boolean(resumeData), bypass });
        if (cancelled) return;
        if (resumeData && resumeData.confirmedDatasetType !== data.datasetType) {
          // Part 2 §4: resume data of another dataset is ignored; the server's set is used.
          logger.fallback('main_resume', `resume data of ${resumeData.confirmedDatasetType} ignored for ${data.datasetType}`);
        }
        rememberParticipant({ sessionId: data.sessionId, datasetType: data.datasetType });
        if (completed >= studyConfig.mainExperiment.numCases && box.state().pending === 0) {
          void navigate('/experiment/post-survey', { replace: true, state: { sessionId: data.sessionId, fromResume: true } });
          return;
        }
        box.acknowledge(serverAnswered);
        dispatch({ type: 'loaded', data, answered: [...serverAnswered, ...box.answers().map((a) => a.case_id)] });
        void box.flush();
      } catch (err: unknown) {
        if (cancelled) return;
        if (err instanceof ScreenedOut) {
          screenedOut();
          return;
        }
        if (err instanceof StudyFullAtMain) {
          logger.fallback('main_study_full', err.message);
          dispatch({ type: 'load_failed', messageKey: 'main.studyFull' });
          return;
        }
        if (err instanceof NotReadyForMain) {
          // Part 2 §2.1: without a finished pre-experiment (and no debug/tutorial flag) the participant is not let in (`sentBackTo` above has normally taken them where they are already).
          logger.fallback('main_not_ready', err.message);
          void navigate('/', { replace: true });
          return;
        }
        logger.error('main_start', 'the main experiment could not start', { error: String(err) });
        dispatch({
          type: 'load_failed',
          messageKey: 'main.startFailed',
          detail: err instanceof ApiError || err instanceof NetworkError ? userErrorMessage(t, err) : undefined,
        });
      }
    })();
    return () => {
      cancelled = true;
      box.dispose();
      attemptBox.dispose();
    };
    // Start once per participant; the route state is only read at that moment.
  }, [sessionId]);

  const pauseBeforeNext = useBetweenCasesPause();

  // The end: every saved case reaches the server, then the database's own count decides.
  const finishing = state.screen.kind === 'finishing';
  const data = state.data;
  useEffect(() => {
    if (!finishing || !data || !outbox) return;
    let stopped = false;
    const confirm = async () => {
      while (!stopped) {
        await outbox.flush();
        if (outbox.state().pending === 0) {
          try {
            const summary = await fetchMainSummary(data.sessionId);
            if (stopped) return;
            if (summary.complete) return dispatch({ type: 'confirmed', summary });
            logger.production('main_incomplete', `the database holds ${summary.completed} of ${summary.total} cases after the set`, {});
            return dispatch({ type: 'finish_failed', messageKey: 'main.needMoreCases', detail: t('main.serverHolds', { count: summary.completed, total: summary.total }) });
          } catch (err) {
            logger.error('network', 'completion check failed; retrying', { error: String(err) });
          }
        }
        if (!stopped) dispatch({ type: 'finish_retrying', offline: !navigator.onLine });
        await new Promise((r) => setTimeout(r, RECHECK_DELAY_MS));
      }
    };
    void confirm();
    return () => {
      stopped = true;
    };
  }, [finishing, data, outbox, t]);

  /** A case's record is saved (in this browser first), then the pause before the next case begins. */
  const caseDone = (record: CaseRecord) => {
    if (!outbox || !current || !data || state.pausingAfter) return;
    outbox.add(integratedResponse(data.sessionId, current, record));
    dispatch({ type: 'case_done', caseId: current.case_id });
    // With outcome feedback the case stays on screen with its outcome until the participant moves on (`nextCase`).
    if (data.condition.outcome_feedback) return;
    pauseBeforeNext(nextCase);
  };
  const nextCase = () => {
    window.scrollTo(0, 0);
    dispatch({ type: 'next_case' });
  };
  /** Resolves once every case saved here is on the server; rejects while one is still on its way (the network failed). */
  const caseStored = async () => {
    if (!outbox) throw new Error('no outbox');
    await outbox.flush();
    if (outbox.state().pending > 0) throw new Error(outbox.state().lastError ?? 'the case has not reached the server yet');
  };

  return {
    state,
    current,
    outboxState,
    caseDone,
    caseStored,
    nextCase,
    saveTestAttempt: (attempt: Omit<TestAttempt, 'session_id'>) => {
      if (sessionId) attempts?.add({ ...attempt, session_id: sessionId });
    },
    openTutorial: () => dispatch({ type: 'tutorial_opened' }),
    closeTutorial: () => dispatch({ type: 'tutorial_closed' }),
    finishTutorial: () => {
      sessionStorage.setItem(sessionKeys.mainTutorialDone, 'true');
      dispatch({ type: 'tutorial_done' });
    },
    openTest: () => dispatch({ type: 'test_opened' }),
    closeTest: () => dispatch({ type: 'test_closed' }),
    passTest: () => {
      sessionStorage.setItem(sessionKeys.mainTestPassed, 'true');
      dispatch({ type: 'test_passed' });
    },
    start: () => {
      window.scrollTo(0, 0);
      dispatch({ type: 'started' });
    },
  };
}
