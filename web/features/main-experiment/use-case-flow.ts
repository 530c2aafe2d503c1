/**
 * The runner of one case's steps: it reads the clock for every event, fetches the explanation
 * when the condition's plan gets to it (after the initial judgement, or at once where the AI is
 * shown with the case), and reports the finished record once. Used for the real
 * cases and the practice case alike (remount with a new `key` for the next case).
 */
import { useEffect, useLayoutEffect, useReducer, useRef } from 'react';
import type { Judgement } from '../../components/ui/judgement-input';
import { logger } from '../../lib/error-log';
import { caseFlowReducer, initialCaseFlow, type CaseRecord, type SurveyResponse } from './case-flow-machine';
import type { CasePlan } from './condition-plan';
import { fetchExplanation } from './explanation';

export function useCaseFlow(opts: { sessionId: string; caseId: string; alpha: number | null; plan: CasePlan; onDone: (record: CaseRecord) => void }) {
  const [state, dispatch] = useReducer(caseFlowReducer, undefined, () => initialCaseFlow(performance.now(), opts.plan));
  const { sessionId, caseId, alpha } = opts;
  const predictionOnly = opts.plan.ai === 'prediction';
  const onDone = useRef(opts.onDone);
  onDone.current = opts.onDone;

  const explaining = state.step.kind === 'explaining';
  useEffect(() => {
    if (!explaining) return;
    let cancelled = false;
    fetchExplanation({ sessionId, caseId, alpha, predictionOnly })
      .then((explanation) => !cancelled && dispatch({ type: 'explanation_loaded', explanation, at: performance.now() }))
      .catch((err: unknown) => {
        logger.error('explanation', `no explanation for ${caseId}`, { error: String(err) });
        if (!cancelled) dispatch({ type: 'explanation_failed', detail: err instanceof Error ? err.message : String(err) });
      });
    return () => {
      cancelled = true;
    };
  }, [explaining, sessionId, caseId, alpha, predictionOnly]);

  // Every step's time runs from when its screen is committed to the page, in every condition:
  // read here, in a ref, so taking it costs no second render of the step (its chart).
  const kind = state.step.kind;
  const shownAt = useRef(0);
  useLayoutEffect(() => {
    shownAt.current = performance.now();
  }, [kind]);

  const reported = useRef(false);
  useEffect(() => {
    if (state.step.kind !== 'done' || reported.current) return;
    reported.current = true;
    onDone.current(state.step.record);
  }, [state.step]);

  return {
    state,
    // Judgements are timed at the click that decided them, not after the "sending" pause.
    submitInitial: (judgement: Judgement, decidedAt: number) => dispatch({ type: 'initial_submitted', judgement, at: decidedAt }),
    confirmExplanation: () => dispatch({ type: 'explanation_confirmed', at: performance.now(), shownAt: shownAt.current }),
    submitFinal: (judgement: Judgement, decidedAt: number) => dispatch({ type: 'final_submitted', judgement, at: decidedAt, shownAt: shownAt.current }),
    submitSurvey: (survey: SurveyResponse) => dispatch({ type: 'survey_submitted', survey, at: performance.now() }),
    retryExplanation: () => dispatch({ type: 'explanation_retried' }),
  };
}
