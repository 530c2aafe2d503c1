/**
 * The runner of one case's steps: it reads the clock for every event, fetches the explanation
 * when the condition's plan gets to it (after the initial judgement, or at once where the AI is
 * shown with the case), and reports the finished record once. Used for the real
 * cases and the practice case alike (remount with a new `key` for the next case).
 */
import { useEffect, useReducer, useRef } from 'react';
import type { Judgement } from '../../components/ui/judgement-input';
import { logger } from '../../lib/error-log';
import { useShownAt } from '../../lib/use-shown-at';
import { saysStudyMovedOn } from '../../lib/use-study-moved-on';
import { caseFlowReducer, initialCaseFlow, type CaseRecord, type KeptSteps, type SurveyResponse } from './case-flow-machine';
import type { CasePlan } from './condition-plan';
import { fetchExplanation } from './explanation';
import { keepStep, type TrialStep } from './trial-progress';

export function useCaseFlow(opts: {
  sessionId: string;
  caseId: string;
  alpha: number | null;
  plan: CasePlan;
  onDone: (record: CaseRecord) => void;
  /** A case of the participant's main set: the server keeps its steps, and `kept` is what it kept before this page opened it. */
  recorded?: { kept: KeptSteps | null; onMovedOn: () => void };
}) {
  const [state, dispatch] = useReducer(caseFlowReducer, undefined, () => initialCaseFlow(performance.now(), opts.plan, opts.recorded?.kept ?? null));
  const { sessionId, caseId, alpha, plan } = opts;
  const recorded = Boolean(opts.recorded);
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
  const explaining = step.kind === 'explaining';
  // The initial judgement the AI's request carries (read when the request goes; it never changes on this step).
  const initial = step.kind === 'explaining' ? step.initial : null;
  useEffect(() => {
    if (!explaining) return;
    let cancelled = false;
    fetchExplanation({ sessionId, caseId, alpha, predictionOnly, initial })
      .then((explanation) => !cancelled && dispatch({ type: 'explanation_loaded', explanation, at: performance.now() }))
      .catch((err: unknown) => {
        movedOnIfSaid(err);
        logger.error('explanation', `no explanation for ${caseId}`, { error: String(err) });
        if (!cancelled) dispatch({ type: 'explanation_failed', detail: err instanceof Error ? err.message : String(err) });
      });
    return () => {
      cancelled = true;
    };
    // `initial` is fixed while the step lasts; a retry comes back through `explaining`.
  }, [explaining, sessionId, caseId, alpha, predictionOnly]);

  // The steps the server keeps, each once, as the case reaches them (not those it gave back).
  const sent = useRef(new Set<string>());
  useEffect(() => {
    if (!recorded) return;
    const kept = state.kept;
    const once = (body: TrialStep) => {
      if (sent.current.has(body.step)) return;
      sent.current.add(body.step);
      void keepStep(body).catch(movedOnIfSaid);
    };
    const at = { session_id: sessionId, case_id: caseId };
    if (step.kind === 'final' && step.initial && plan.ai === 'none' && !kept?.initial) {
      const j = step.initial;
      once({ step: 'initial', ...at, initial_prediction: j.prediction, initial_confidence: j.confidence, initial_response_time_ms: j.response_time_ms, initial_reasoning: j.reasoning ?? null });
    }
    if (step.kind === 'final' && plan.aiStep && step.explanationViewMs !== null && kept?.explanationViewMs == null) {
      once({ step: 'explanation_viewed', ...at, explanation_viewing_time_ms: step.explanationViewMs });
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
        explanation_viewing_time_ms: step.explanationViewMs,
      });
    }
  }, [step, state.kept, recorded, sessionId, caseId, plan]);

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
  };
}
