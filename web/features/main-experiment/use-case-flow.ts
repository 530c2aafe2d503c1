/**
 * The runner of one case's steps: it reads the clock for every event, fetches the explanation
 * when the condition's plan gets to it (after the initial judgement, or at once where the AI is
 * shown with the case), and reports the finished record once. Used for the real
 * cases and the practice case alike (remount with a new `key` for the next case).
 */
import { useEffect, useReducer, useRef, useState } from 'react';
import type { Judgement, StepDeadline } from '../../components/ui/judgement-input';
import { logger } from '../../lib/error-log';
import { useShownAt } from '../../lib/use-shown-at';
import { saysStudyMovedOn } from '../../lib/use-study-moved-on';
import { caseFlowReducer, initialCaseFlow, type CaseRecord, type KeptSteps, type SurveyResponse } from './case-flow-machine';
import type { CasePlan } from './condition-plan';
import { fetchExplanation, saysAdviceNotYet } from './explanation';
import { keepStep, type TrialStep } from './trial-progress';
import type { CaseInProgress } from '../../../worker/schemas/main-experiment';

export function useCaseFlow(opts: {
  sessionId: string;
  caseId: string;
  alpha: number | null;
  plan: CasePlan;
  onDone: (record: CaseRecord) => void;
  /** A case of the participant's main set: the server keeps its steps, and `kept` is what it kept before this page opened it (`first`: the set's first case). */
  recorded?: { kept: KeptSteps | null; onMovedOn: () => void; first?: boolean };
}) {
  const [state, dispatch] = useReducer(caseFlowReducer, undefined, () => initialCaseFlow(performance.now(), opts.plan, opts.recorded?.kept ?? null));
  const { sessionId, caseId, alpha, plan } = opts;
  const recorded = Boolean(opts.recorded);
  const opensFirst = opts.recorded?.first === true;
  const predictionOnly = plan.ai === 'prediction';
  const onDone = useRef(opts.onDone);
  onDone.current = opts.onDone;
  // The server said this case went further elsewhere (another tab or device): the page says so.
  const onMovedOn = useRef(opts.recorded?.onMovedOn);
  onMovedOn.current = opts.recorded?.onMovedOn;
  const movedOnIfSaid = (err: unknown) => {
    if (saysStudyMovedOn(err)) onMovedOn.current?.();
  };

  const { step } = state;
  // A forced wait (`plan.waitMs`) runs from the initial judgement: for a case the server keeps, by
  // the server's clock (its answer to the kept initial judgement says how much is left); for the
  // practice case, from the click. Until it is known the AI is not asked for.
  const [readyAt, setReadyAt] = useState<number | null>(() => {
    if (plan.waitMs === 0) return 0;
    const left = opts.recorded?.kept?.adviceWaitLeftMs;
    return left === null || left === undefined ? null : performance.now() + left;
  });
  const waitOver = useWaitOver(readyAt);
  const judgedInitial = step.kind !== 'initial' && plan.initial;
  useEffect(() => {
    if (!judgedInitial || readyAt !== null || recorded) return;
    setReadyAt(performance.now() + plan.waitMs);
  }, [judgedInitial, readyAt, recorded, plan.waitMs]);

  // A time limit (`plan.timeLimit`) runs on each judgement step from when it is shown; the server's
  // answers (and, after a reload, the start call) say how much of it its clock has left, and the
  // sooner of the two ends the step.
  const timedStep = step.kind === 'initial' || step.kind === 'final' ? step.kind : null;
  const [deadline, setDeadline] = useState<{ step: 'initial' | 'final'; at: number } | null>(null);
  const resumedLeft = useRef(opts.recorded?.kept?.stepTimeLeftMs ?? null);
  useEffect(() => {
    if (!plan.timeLimit || !timedStep) return;
    const left = resumedLeft.current ?? plan.timeLimit.ms;
    resumedLeft.current = null;
    setDeadline((d) => (d?.step === timedStep ? d : { step: timedStep, at: performance.now() + left }));
  }, [timedStep, plan.timeLimit]);
  const serverLeft = (forStep: 'initial' | 'final', left: number | null) => {
    if (left === null) return;
    setDeadline((d) => (d?.step === forStep ? { step: forStep, at: Math.min(d.at, performance.now() + left) } : d));
  };

  // The AI is fetched on its own step, or on the final one once asked for, and only once a wait is over.
  const fetching = (step.kind === 'explaining' || (step.kind === 'final' && step.request?.state === 'asked')) && waitOver;
  // The initial judgement the AI's request carries (read when the request goes; it never changes on these steps).
  const initial = step.kind === 'explaining' || step.kind === 'final' ? step.initial : null;
  const [notYet, setNotYet] = useState(0);
  useEffect(() => {
    if (!fetching) return;
    let cancelled = false;
    let again: ReturnType<typeof setTimeout> | undefined;
    fetchExplanation({ sessionId, caseId, alpha, predictionOnly, initial })
      .then((explanation) => !cancelled && dispatch({ type: 'explanation_loaded', explanation, at: performance.now() }))
      .catch((err: unknown) => {
        // The server's clock says the wait is not over yet (it started when the judgement reached it): ask again shortly.
        if (saysAdviceNotYet(err)) {
          if (!cancelled) again = setTimeout(() => setNotYet((n) => n + 1), NOT_YET_RETRY_MS);
          return;
        }
        // Another tab or device went further: the page's dialog says so, in the participant's
        // words; behind it nothing reports a failure that did not happen (issue #59, point 6).
        if (saysStudyMovedOn(err)) return movedOnIfSaid(err);
        logger.error('explanation', `no explanation for ${caseId}`, { error: String(err) });
        if (!cancelled) dispatch({ type: 'explanation_failed', detail: err instanceof Error ? err.message : String(err) });
      });
    return () => {
      cancelled = true;
      clearTimeout(again);
    };
    // `initial` is fixed while the step lasts; a retry comes back through `explaining` (or asking again).
  }, [fetching, notYet, sessionId, caseId, alpha, predictionOnly]);

  // The steps the server keeps, each once, as the case reaches them (not those it gave back).
  const sent = useRef(new Set<string>());
  useEffect(() => {
    if (!recorded) return;
    const kept = state.kept;
    const once = (body: TrialStep, answered?: (kept: CaseInProgress) => void) => {
      if (sent.current.has(body.step)) return;
      sent.current.add(body.step);
      void keepStep(body)
        .then(answered)
        .catch((err: unknown) => {
          movedOnIfSaid(err);
          // Not kept: the wait runs from the click, and the server's own clock still holds the AI back until it is over.
          if (body.step === 'initial') setReadyAt((at) => at ?? performance.now() + plan.waitMs);
        });
    };
    const at = { session_id: sessionId, case_id: caseId };
    // Under a time limit the server times the first judgement step from the word that it is on screen;
    // on the set's first case that word also brings a reload back to the case, not the introduction.
    const firstStep = plan.initial ? 'initial' : 'final';
    if ((plan.timeLimit || opensFirst) && step.kind === firstStep && !kept?.initial && !kept?.final) {
      once({ step: 'opened', ...at }, (answer) => serverLeft(firstStep, answer.step_time_left_ms));
    }
    // The initial judgement is sent on its own where no AI follows it at once: none at all, on request, or after a wait the server times from it.
    const sentAlone = plan.ai === 'none' || plan.onRequest || plan.waitMs > 0;
    if ((step.kind === 'final' || step.kind === 'explaining') && step.initial && sentAlone && !kept?.initial) {
      const j = step.initial;
      once(
        {
          step: 'initial',
          ...at,
          initial_prediction: j.prediction,
          initial_confidence: j.confidence,
          initial_response_time_ms: j.response_time_ms,
          initial_reasoning: j.reasoning ?? null,
          ...(j.timed_out ? { initial_timed_out: true } : {}),
        },
        (answer) => {
          if (answer.advice_wait_left_ms !== null) setReadyAt(performance.now() + answer.advice_wait_left_ms);
          else if (plan.waitMs > 0) setReadyAt(performance.now());
          if (!plan.aiStep) serverLeft('final', answer.step_time_left_ms);
        },
      );
    }
    if (step.kind === 'final' && plan.aiStep && step.explanationViewMs !== null && kept?.explanationViewMs == null) {
      once({ step: 'explanation_viewed', ...at, explanation_viewing_time_ms: step.explanationViewMs }, (answer) => serverLeft('final', answer.step_time_left_ms));
    }
    if (step.kind === 'survey' && !kept?.final) {
      const j = step.final;
      once({
        step: 'final',
        ...at,
        final_prediction: j.prediction,
        final_confidence: j.confidence,
        final_response_time_ms: j.response_time_ms,
        final_reasoning: j.reasoning ?? null,
        ...(j.timed_out ? { final_timed_out: true } : {}),
        explanation_viewing_time_ms: step.explanationViewMs,
      });
    }
  }, [step, state.kept, recorded, opensFirst, sessionId, caseId, plan]);

  // Every step's time runs from the first frame that shows it, in every condition: read in a ref,
  // so taking it costs no second render of the step (its chart).
  const shownAt = useShownAt(state.step.kind);

  const reported = useRef(false);
  useEffect(() => {
    if (state.step.kind !== 'done' || reported.current) return;
    reported.current = true;
    onDone.current(state.step.record);
  }, [state.step]);

  return {
    state,
    // Judgements are timed at the click that decided them, not after the "sending" pause.
    submitInitial: (judgement: Judgement, decidedAt: number) => dispatch({ type: 'initial_submitted', judgement, at: decidedAt, shownAt: shownAt.current }),
    confirmExplanation: () => dispatch({ type: 'explanation_confirmed', at: performance.now(), shownAt: shownAt.current }),
    submitFinal: (judgement: Judgement, decidedAt: number) => dispatch({ type: 'final_submitted', judgement, at: decidedAt, shownAt: shownAt.current }),
    submitSurvey: (survey: SurveyResponse) => dispatch({ type: 'survey_submitted', survey, at: performance.now() }),
    retryExplanation: () => dispatch({ type: 'explanation_retried' }),
    requestAdvice: () => dispatch({ type: 'advice_requested' }),
    /** The time limit of the judgement step on screen (null while it is being set up); undefined without one. */
    deadline: plan.timeLimit && timedStep ? ({ at: deadline?.step === timedStep ? deadline.at : null, onTimeout: plan.timeLimit.onTimeout } satisfies StepDeadline) : undefined,
    /** When a forced wait ends (`performance.now()`), null while the server has not said; 0 without a wait. */
    adviceReadyAt: readyAt,
    adviceWaitOver: waitOver,
  };
}

/** The server says the wait is not over: asked again after this long. */
const NOT_YET_RETRY_MS = 1000;

/** Whether `readyAt` (a `performance.now()` reading; null: not known yet) has passed, re-rendering when it does. */
function useWaitOver(readyAt: number | null): boolean {
  const [over, setOver] = useState(() => readyAt !== null && performance.now() >= readyAt);
  useEffect(() => {
    if (readyAt === null) return setOver(false);
    const left = readyAt - performance.now();
    if (left <= 0) return setOver(true);
    setOver(false);
    const timer = setTimeout(() => setOver(true), left);
    return () => clearTimeout(timer);
  }, [readyAt]);
  return over;
}
