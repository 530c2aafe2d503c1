/**
 * The pre-experiment's side effects around its state machine: loading the participant's set,
 * the practice cases, the response time of each case, the spec's pause between cases, the outbox
 * and the final send, and the user-model training. Everything it learns it dispatches as an
 * event of `pre-experiment-machine.ts`; it never decides a screen itself.
 */
import { useEffect, useReducer, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { Judgement } from '../../components/ui/judgement-input';
import { ApiError, NetworkError } from '../../lib/api';
import { logger } from '../../lib/error-log';
import { userErrorMessage } from '../../lib/http-errors';
import { isRefusal } from '../../lib/refusal';
import { AnswerOutbox, preOutboxKey } from '../../lib/outbox';
import { useBetweenCasesPause } from '../../lib/use-between-cases-pause';
import { useOutboxState } from '../../lib/use-outbox-state';
import { useShownAt } from '../../lib/use-shown-at';
import { rememberParticipant, rememberUserModel } from '../../lib/participant';
import type { ResumeData } from '../../lib/resume';
import { sessionKeys } from '../../lib/storage-keys';
import { answerSender, sendAll, trainUserModel } from './answer-sender';
import { CaseSetError, fetchTutorialCases, loadPreExperiment } from './load';
import { currentCase, initialPreState, preReducer } from './pre-experiment-machine';

/** How long the final send waits before trying again after a network or server failure. */
const RESEND_DELAY_MS = 2000;

/** The practice is done once per tab (part 1 §4: a session-only flag). */
const tutorialDoneInTab = () => sessionStorage.getItem(sessionKeys.preTutorialDone) === 'true';

export function usePreExperiment(sessionId: string | null, resumeData: ResumeData | undefined) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [state, dispatch] = useReducer(preReducer, undefined, () => initialPreState(tutorialDoneInTab()));
  const [outbox, setOutbox] = useState<AnswerOutbox | null>(null);
  const outboxState = useOutboxState(outbox);
  const current = currentCase(state);
  // A case's response time runs from the first frame that shows it.
  const shownAt = useShownAt(current?.case_id);

  useEffect(() => {
    if (!sessionId) {
      dispatch({ type: 'load_failed', messageKey: 'resume.noParticipantName' });
      return;
    }
    let cancelled = false;
    const box = new AnswerOutbox(preOutboxKey(sessionId), answerSender(sessionId));
    setOutbox(box);
    loadPreExperiment(sessionId, resumeData)
      .then((result) => {
        if (cancelled) return;
        if (result.kind === 'redirect') {
          void navigate(result.destination.path, { state: result.destination.state, replace: true });
          return;
        }
        const { data } = result;
        rememberParticipant({ sessionId: data.sessionId, userId: data.userId, datasetType: data.datasetType });
        box.acknowledge(data.serverAnswered);
        dispatch({ type: 'loaded', data, answered: [...data.serverAnswered, ...box.answers().map((a) => a.case_id)] });
        void box.flush();
      })
      .catch((err: unknown) => {
        if (cancelled) return;
        logger.error('pre_experiment_load', 'pre-experiment could not load', { error: String(err) });
        dispatch({
          type: 'load_failed',
          detail: err instanceof ApiError || err instanceof NetworkError ? userErrorMessage(t, err) : undefined,
          messageKey:
            err instanceof CaseSetError ? 'pre.caseSetFailed' : err instanceof ApiError && err.status === 404 ? 'pre.noDataset' : 'pre.datasetFetchFailed',
        });
      });
    return () => {
      cancelled = true;
      box.dispose();
    };
    // Load once per participant; the route state is only read at that moment.
  }, [sessionId]);

  // The practice cases, also the intro's example, so it never shows (and primes) a real case.
  const datasetForTutorial = state.screen.kind === 'intro' ? state.data?.datasetType : undefined;
  useEffect(() => {
    if (!datasetForTutorial) return;
    let cancelled = false;
    fetchTutorialCases(datasetForTutorial)
      .then((cases) => !cancelled && dispatch({ type: 'tutorial_cases', cases }))
      .catch((err: unknown) => {
        logger.error('tutorial', 'tutorial cases unavailable', { error: String(err) });
        if (!cancelled) dispatch({ type: 'tutorial_cases', cases: [] });
      });
    return () => {
      cancelled = true;
    };
  }, [datasetForTutorial]);


  const pauseBeforeNext = useBetweenCasesPause();

  // Final phase: make sure the server holds every answer, then learn the participant's pattern.
  // One run spans both screens, so leaving "sending" for "learning" does not cancel it. It always
  // ends: only a network failure or a server error is retried; a refusal or a short count ends in
  // an error screen with resume, which leads back to the cases the server is missing.
  const finishing = state.screen.kind === 'sending' || state.screen.kind === 'learning';
  const data = state.data;
  useEffect(() => {
    if (!finishing || !data || !outbox) return;
    let stopped = false;
    const fail = (messageKey: string, detail?: string) => {
      if (!stopped) dispatch({ type: 'send_failed', messageKey, detail });
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
          if (!stopped) dispatch({ type: 'send_retrying', offline: err instanceof NetworkError });
        }
        await new Promise((r) => setTimeout(r, RESEND_DELAY_MS));
      }
      if (stopped) return;
      dispatch({ type: 'all_confirmed' });
      const model = await trainUserModel(data.sessionId, data.datasetType);
      rememberUserModel({ trained: model.trained, sessionId: data.sessionId, trainingSamples: model.samples });
      if (!stopped) dispatch({ type: 'learned', trained: model.trained, samples: model.samples });
    };
    void confirm();
    return () => {
      stopped = true;
    };
  }, [finishing, data, outbox, t]);

  /**
   * Saves the answer to the case on screen (first in this browser), then the pause begins. Its
   * response time runs to the click that decided it (`decidedAt`), not to the end of the "sending" pause.
   */
  const submit = (judgement: Judgement, decidedAt: number) => {
    if (!outbox || !current || state.pausingAfter || state.screen.kind !== 'answering') return;
    outbox.add({
      case_id: current.case_id,
      case_number: current.case_number,
      prediction: judgement.prediction,
      confidence: judgement.confidence,
      response_time_ms: Math.round(decidedAt - shownAt.current),
      ...(judgement.reasoning ? { reasoning: judgement.reasoning } : {}),
      answered_at: new Date().toISOString(),
    });
    dispatch({ type: 'answered', caseId: current.case_id });
    // The next case opens at the top of the screen.
    pauseBeforeNext(() => {
      window.scrollTo(0, 0);
      dispatch({ type: 'next_case' });
    });
  };

  return {
    state,
    current,
    outboxState,
    submit,
    openTutorial: () => dispatch({ type: 'tutorial_opened' }),
    closeTutorial: () => dispatch({ type: 'tutorial_closed' }),
    finishTutorial: () => {
      sessionStorage.setItem(sessionKeys.preTutorialDone, 'true');
      dispatch({ type: 'tutorial_done' });
    },
    start: () => {
      window.scrollTo(0, 0);
      dispatch({ type: 'started' });
    },
  };
}
