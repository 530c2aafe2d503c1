import { describe, expect, it } from 'vitest';
import { caseFlowReducer, initialCaseFlow, stepIndex, type CaseFlowEvent, type CaseFlowState } from '../../web/features/main-experiment/case-flow-machine';
import { planOf, type ConditionView } from '../../web/features/main-experiment/condition-plan';
import type { ShownExplanation } from '../../web/features/main-experiment/explanation';
import { integratedResponse } from '../../web/features/main-experiment/response-sender';
import { barGeometry, explanationRows } from '../../web/components/ui/explanation-chart';
import { canStart, currentCase, initialMainState, mainReducer, remainingCases, type MainEvent, type MainState } from '../../web/features/main-experiment/main-experiment-machine';
import { currentQuestion, newAttempt, testReducer, type TestEvent, type TestState } from '../../web/features/main-experiment/understanding-test-machine';
import type { MainCase } from '../../worker/schemas/main-experiment';
import { drawUnderstandingQuestions } from '../../worker/schemas/understanding-test';

const explanation: ShownExplanation = {
  kind: 'human_aligned',
  prediction: 1,
  aiProbability: 0.8,
  aiConfidence: null,
  aiBaseProbability: 0.4,
  modelIdentifier: 'ai',
  testAccuracy: 0.7,
  statedAccuracy: 0.7,
  accuracyStatement: 'measured',
  alpha: 0.25,
  ai: [],
  user: [],
  shown: [],
  userModelAvailable: true,
  userModelIdentifier: 'user',
  userModelPrediction: 0,
  userModelProbability: 0.3,
  servedId: 12,
};

const flow = (state: CaseFlowState, ...events: CaseFlowEvent[]) => events.reduce(caseFlowReducer, state);

const SPEC: ConditionView = { name: 'human_aligned', shows: 'explanation', ai_timing: 'after_initial', judgements: 2, outcome_feedback: false, advice_on_request: false, advice_wait_seconds: null, time_limit: null, incentive: null };
const spec = planOf(SPEC);

describe('case flow', () => {
  it('goes initial → explanation → final → survey → done and times each step from the runner’s clock', () => {
    const done = flow(
      initialCaseFlow(1000, spec),
      { type: 'initial_submitted', judgement: { prediction: 0, confidence: 2, reasoning: 'r' }, at: 4000 },
      { type: 'explanation_loaded', explanation, at: 4500 },
      { type: 'explanation_confirmed', at: 9500 },
      { type: 'final_submitted', judgement: { prediction: 1, confidence: 4 }, at: 12500 },
      { type: 'survey_submitted', survey: { comprehensibility: 1, transparency: 2, satisfaction: 3, trust: 4, alignment: 5 }, at: 20000 },
    );
    expect(done.step.kind).toBe('done');
    if (done.step.kind !== 'done') return;
    expect(done.step.record).toMatchObject({
      initial: { prediction: 0, confidence: 2, reasoning: 'r', response_time_ms: 3000 },
      explanationViewMs: 5000,
      final: { prediction: 1, confidence: 4, response_time_ms: 3000 },
      totalMs: 19000,
    });
    expect(done.step.record.explanation).toBe(explanation);
  });

  it('times a step from when its screen is on the page (the runner’s shownAt), not from when it was decided to show it', () => {
    const done = flow(
      initialCaseFlow(1000, spec),
      { type: 'initial_submitted', judgement: { prediction: 0, confidence: 2 }, at: 4000 },
      { type: 'explanation_loaded', explanation, at: 4500 },
      // The chart took 130 ms to render.
      { type: 'explanation_confirmed', at: 9630, shownAt: 4630 },
      { type: 'final_submitted', judgement: { prediction: 1, confidence: 4 }, at: 12650, shownAt: 9650 },
    );
    expect(done.step).toMatchObject({ kind: 'survey', explanationViewMs: 5000, final: { response_time_ms: 3000 } });
  });

  it('ignores events out of order, and a failed explanation can be retried', () => {
    const start = initialCaseFlow(0, spec);
    expect(flow(start, { type: 'explanation_confirmed', at: 5 })).toBe(start);
    expect(flow(start, { type: 'final_submitted', judgement: { prediction: 1, confidence: 3 }, at: 5 })).toBe(start);
    const failed = flow(start, { type: 'initial_submitted', judgement: { prediction: 1, confidence: 3 }, at: 10 }, { type: 'explanation_failed', detail: 'down' });
    expect(failed.step).toMatchObject({ kind: 'failed', detail: 'down', initial: { response_time_ms: 10 } });
    expect(stepIndex(failed.step, spec)).toBe(1);
    expect(flow(failed, { type: 'explanation_retried' }).step.kind).toBe('explaining');
  });

  const judgement = { prediction: 1 as const, confidence: 4 };
  const item: MainCase = { case_id: 'compas_main_a_001', case_number: 1, dataset_type: 'compas', features: {}, alignment_alpha: null };

  it('the AI with the case: one judgement, then the questions, the explanation read while judging', () => {
    const plan = planOf({ name: 'with_case', shows: 'explanation', ai_timing: 'with_case', judgements: 1, outcome_feedback: false, advice_on_request: false, advice_wait_seconds: null, time_limit: null, incentive: null });
    expect(plan.steps).toEqual(['judgement', 'survey']);
    const start = initialCaseFlow(0, plan);
    expect(start.step.kind).toBe('explaining');
    const judging = flow(start, { type: 'explanation_loaded', explanation, at: 500 });
    expect(judging.step).toMatchObject({ kind: 'final', initial: null, explanation });
    expect(stepIndex(judging.step, plan)).toBe(0);
    const done = flow(judging, { type: 'final_submitted', judgement, at: 6500 }, { type: 'survey_submitted', survey: { comprehensibility: 1, transparency: 2, satisfaction: 3, trust: 4, alignment: 5 }, at: 9000 });
    if (done.step.kind !== 'done') throw new Error('not done');
    expect(done.step.record).toMatchObject({ initial: null, explanationViewMs: 6000, final: { response_time_ms: 6000 } });
    const body = integratedResponse('AB23CD45', item, done.step.record);
    expect(body).not.toHaveProperty('initial_prediction');
    expect(body).toMatchObject({ ai_prediction: 1, explanation_viewing_time_ms: 6000, trust: 4 });
  });

  it("the AI's prediction alone: its own step, then trust as the only question", () => {
    const plan = planOf({ name: 'prediction', shows: 'ai_prediction', ai_timing: 'after_initial', judgements: 2, outcome_feedback: false, advice_on_request: false, advice_wait_seconds: null, time_limit: null, incentive: null });
    expect(plan).toMatchObject({ steps: ['initial', 'prediction', 'final', 'survey'], ratings: ['trust'] });
    const bare: ShownExplanation = { ...explanation, kind: 'prediction_only', alpha: null };
    const done = flow(
      initialCaseFlow(0, plan),
      { type: 'initial_submitted', judgement, at: 1000 },
      { type: 'explanation_loaded', explanation: bare, at: 1500 },
      { type: 'explanation_confirmed', at: 2500 },
      { type: 'final_submitted', judgement, at: 4000 },
      { type: 'survey_submitted', survey: { trust: 2 }, at: 5000 },
    );
    if (done.step.kind !== 'done') throw new Error('not done');
    const body = integratedResponse('AB23CD45', item, done.step.record);
    expect(body).toMatchObject({ explanation_kind: 'prediction_only', trust: 2, alignment_alpha: null });
    expect(body).not.toHaveProperty('comprehensibility');
  });

  it('no AI: judging twice, or once, and nothing else', () => {
    const twice = planOf({ name: 'alone', shows: 'none', ai_timing: null, judgements: 2, outcome_feedback: false, advice_on_request: false, advice_wait_seconds: null, time_limit: null, incentive: null });
    expect(twice.steps).toEqual(['initial', 'final']);
    // The case opens at 0 and its first frame is painted at 40: the initial time runs from there.
    // Clicked at 2040, the final judgement appears after the 300 ms pause: its time runs from 2340.
    const done = flow(
      initialCaseFlow(0, twice),
      { type: 'initial_submitted', judgement, at: 2040, shownAt: 40 },
      { type: 'final_submitted', judgement: { prediction: 0, confidence: 2 }, at: 5040, shownAt: 2340 },
    );
    if (done.step.kind !== 'done') throw new Error('not done');
    expect(done.step.record).toMatchObject({ initial: { response_time_ms: 2000 }, explanation: null, explanationViewMs: null, final: { response_time_ms: 2700 }, survey: {}, totalMs: 5040 });
    const body = integratedResponse('AB23CD45', item, done.step.record);
    expect(body).not.toHaveProperty('ai_prediction');
    expect(body).not.toHaveProperty('trust');
    const once = planOf({ name: 'once', shows: 'none', ai_timing: null, judgements: 1, outcome_feedback: false, advice_on_request: false, advice_wait_seconds: null, time_limit: null, incentive: null });
    expect(initialCaseFlow(0, once).step).toMatchObject({ kind: 'final', initial: null, explanation: null });
  });

  const ON_REQUEST: ConditionView = { ...SPEC, name: 'on_request', advice_on_request: true, advice_wait_seconds: 10 };
  const onRequest = planOf(ON_REQUEST);

  it('advice on request: the final step offers the AI; not asked for, the case ends with no AI and no questions', () => {
    expect(onRequest).toMatchObject({ onRequest: true, waitMs: 10_000, aiStep: false, steps: ['initial', 'final', 'survey'] });
    const offered = flow(initialCaseFlow(0, onRequest), { type: 'initial_submitted', judgement, at: 1000 });
    expect(offered.step).toMatchObject({ kind: 'final', explanation: null, request: { state: 'offered' }, shownAt: 1000 });
    const done = flow(offered, { type: 'final_submitted', judgement: { prediction: 0, confidence: 5 }, at: 4000 });
    if (done.step.kind !== 'done') throw new Error('not done');
    expect(done.step.record).toMatchObject({ explanation: null, explanationViewMs: null, final: { response_time_ms: 3000 }, survey: {} });
    const body = integratedResponse('AB23CD45', item, done.step.record);
    expect(body).toMatchObject({ initial_prediction: 1, final_prediction: 0 });
    for (const key of ['ai_prediction', 'explanation_viewing_time_ms', 'served_explanation_id', 'comprehensibility']) expect(body).not.toHaveProperty(key);
  });

  it('advice on request: asked for, the AI appears on the same step, its viewing time runs from then, and the questions follow', () => {
    const asked = flow(initialCaseFlow(0, onRequest), { type: 'initial_submitted', judgement, at: 1000 }, { type: 'advice_requested' });
    expect(asked.step).toMatchObject({ kind: 'final', request: { state: 'asked' } });
    // No judgement while the AI asked for is on its way.
    expect(flow(asked, { type: 'final_submitted', judgement, at: 1200 })).toBe(asked);
    const failed = flow(asked, { type: 'explanation_failed', detail: 'offline' });
    expect(failed.step).toMatchObject({ kind: 'final', request: { state: 'failed', detail: 'offline' } });
    const shown = flow(failed, { type: 'advice_requested' }, { type: 'explanation_loaded', explanation, at: 15_000 });
    expect(shown.step).toMatchObject({ kind: 'final', explanation, request: { state: 'shown', at: 15_000 } });
    expect(stepIndex(shown.step, onRequest)).toBe(1);
    const answered = flow(shown, { type: 'final_submitted', judgement, at: 21_000 });
    expect(answered.step).toMatchObject({ kind: 'survey', explanationViewMs: 6000, final: { response_time_ms: 20_000 } });
    const done = flow(answered, { type: 'survey_submitted', survey: { comprehensibility: 1, transparency: 2, satisfaction: 3, trust: 4, alignment: 5 }, at: 25_000 });
    if (done.step.kind !== 'done') throw new Error('not done');
    expect(integratedResponse('AB23CD45', item, done.step.record)).toMatchObject({ ai_prediction: 1, served_explanation_id: 12, explanation_viewing_time_ms: 6000, trust: 4 });
  });

  it('advice on request resumes offered where it was not asked for, and fetched again where it was', () => {
    const kept = { initial: { ...judgement, response_time_ms: 900 }, explanationViewMs: null, final: null, adviceWaitLeftMs: 0, stepTimeLeftMs: null };
    expect(initialCaseFlow(0, onRequest, { ...kept, adviceServed: false }).step).toMatchObject({ kind: 'final', request: { state: 'offered' }, explanation: null });
    const again = initialCaseFlow(0, onRequest, { ...kept, adviceServed: true });
    expect(again.step).toMatchObject({ kind: 'final', request: { state: 'asked' } });
    expect(flow(again, { type: 'explanation_loaded', explanation, at: 10 }).step).toMatchObject({ kind: 'final', explanation, request: { state: 'shown' } });
  });

  it('a forced wait without request keeps the AI on its own step', () => {
    const waiting = planOf({ ...SPEC, advice_wait_seconds: 5 });
    expect(waiting).toMatchObject({ onRequest: false, waitMs: 5000, aiStep: true, steps: ['initial', 'explanation', 'final', 'survey'] });
    expect(flow(initialCaseFlow(0, waiting), { type: 'initial_submitted', judgement, at: 1000 }).step).toMatchObject({ kind: 'explaining' });
  });
});

describe('a case the server kept steps of resumes where it left', () => {
  const initial = { prediction: 1 as const, confidence: 2, response_time_ms: 5100, reasoning: 'many priors' };
  const final = { prediction: 0 as const, confidence: 4, response_time_ms: 2300 };

  it('after the AI appeared: on the AI fetched again, with the kept initial judgement, never on the initial step', () => {
    const start = initialCaseFlow(100_000, spec, { initial, explanationViewMs: null, final: null, adviceServed: false, adviceWaitLeftMs: null, stepTimeLeftMs: null });
    expect(start.step).toEqual({ kind: 'explaining', initial });
    // An initial judgement sent now is ignored: the step is not the initial one.
    const again = flow(start, { type: 'initial_submitted', judgement: { prediction: 0, confidence: 5 }, at: 100_500 });
    expect(again.step).toEqual({ kind: 'explaining', initial });
    const shown = flow(start, { type: 'explanation_loaded', explanation, at: 101_000 });
    expect(shown.step).toMatchObject({ kind: 'explanation', initial });
    const done = flow(
      shown,
      { type: 'explanation_confirmed', at: 104_000 },
      { type: 'final_submitted', judgement: { prediction: 0, confidence: 4 }, at: 106_000 },
      { type: 'survey_submitted', survey: { trust: 3 }, at: 108_000 },
    );
    if (done.step.kind !== 'done') throw new Error('not done');
    // The kept judgement is the record's; the total counts the kept time and this page's, not the time away.
    expect(done.step.record).toMatchObject({ initial, explanationViewMs: 3000, totalMs: 5100 + 8000 });
  });

  it('after the explanation was read: on the final judgement; after it: on the questions, the explanation at hand', () => {
    const atFinal = flow(initialCaseFlow(0, spec, { initial, explanationViewMs: 7400, final: null, adviceServed: false, adviceWaitLeftMs: null, stepTimeLeftMs: null }), { type: 'explanation_loaded', explanation, at: 50 });
    expect(atFinal.step).toMatchObject({ kind: 'final', initial, explanation, explanationViewMs: 7400 });
    const atSurvey = flow(initialCaseFlow(0, spec, { initial, explanationViewMs: 7400, final, adviceServed: false, adviceWaitLeftMs: null, stepTimeLeftMs: null }), { type: 'explanation_loaded', explanation, at: 50 });
    expect(atSurvey.step).toEqual({ kind: 'survey', initial, explanation, explanationViewMs: 7400, final });
    // The AI shown with the case: its one judgement kept, the questions follow with the AI's answer.
    const withCase = planOf({ name: 'with_case', shows: 'explanation', ai_timing: 'with_case', judgements: 1, outcome_feedback: false, advice_on_request: false, advice_wait_seconds: null, time_limit: null, incentive: null });
    const kept = flow(initialCaseFlow(0, withCase, { initial: null, explanationViewMs: 2300, final, adviceServed: false, adviceWaitLeftMs: null, stepTimeLeftMs: null }), { type: 'explanation_loaded', explanation, at: 50 });
    expect(kept.step).toMatchObject({ kind: 'survey', initial: null, final, explanationViewMs: 2300 });
  });

  it('without AI: on the final judgement with the kept initial one', () => {
    const alone = planOf({ name: 'no_ai', shows: 'none', ai_timing: null, judgements: 2, outcome_feedback: false, advice_on_request: false, advice_wait_seconds: null, time_limit: null, incentive: null });
    expect(initialCaseFlow(0, alone, { initial, explanationViewMs: null, final: null, adviceServed: false, adviceWaitLeftMs: null, stepTimeLeftMs: null }).step).toMatchObject({ kind: 'final', initial, explanation: null });
    // Nothing kept: the case opens as new.
    expect(initialCaseFlow(0, spec, { initial: null, explanationViewMs: null, final: null, adviceServed: false, adviceWaitLeftMs: null, stepTimeLeftMs: null }).step).toEqual({ kind: 'initial' });
  });

  it('a participant with a case under way skips the intro', () => {
    const inProgress = [{ case_id: 'compas_main_a_001', initial: { ...initial, timed_out: false }, explanation_viewing_time_ms: null, final: null, advice_served: false, advice_wait_left_ms: null, step_time_left_ms: null }];
    const s = main(initialMainState({ tutorialDone: false, testPassed: false }), { type: 'loaded', data: { ...data, inProgress }, answered: [] });
    expect(s.screen.kind).toBe('case');
    expect(currentCase(s)?.case_id).toBe('compas_main_a_001');
  });
});

const cases: MainCase[] = [1, 2, 3].map((n) => ({ case_id: `compas_main_a_00${n}`, case_number: n, dataset_type: 'compas', features: {}, alignment_alpha: 0.5 }));
const data = { sessionId: 'AB23CD45', datasetType: 'compas' as const, condition: SPEC, cases, resumed: false, inProgress: [] };
const main = (state: MainState, ...events: MainEvent[]) => events.reduce(mainReducer, state);
const loaded = (answered: string[]) => main(initialMainState({ tutorialDone: false, testPassed: false }), { type: 'loaded', data, answered });

describe('main experiment', () => {
  it('starts only after the tutorial and a passed test; a returning participant skips both', () => {
    const intro = loaded([]);
    expect(intro.screen).toEqual({ kind: 'intro' });
    expect(main(intro, { type: 'started' }).screen.kind).toBe('intro');
    expect(main(intro, { type: 'tutorial_done' }, { type: 'started' }).screen.kind).toBe('intro');
    const ready = main(intro, { type: 'tutorial_done' }, { type: 'test_passed' });
    expect(canStart(ready)).toBe(true);
    expect(main(ready, { type: 'started' }).screen.kind).toBe('case');
    // A condition without explanations has no tutorial or test to wait for.
    const alone = main(initialMainState({ tutorialDone: false, testPassed: false }), { type: 'loaded', data: { ...data, condition: { name: 'alone', shows: 'none', ai_timing: null, judgements: 2, outcome_feedback: false, advice_on_request: false, advice_wait_seconds: null, time_limit: null, incentive: null } }, answered: [] });
    expect(canStart(alone)).toBe(true);
    const resumed = loaded(['compas_main_a_001', 'elsewhere']);
    expect(resumed.screen.kind).toBe('case');
    expect(currentCase(resumed)?.case_number).toBe(2);
    expect(remainingCases(resumed)).toHaveLength(2);
  });

  it('takes one finished case at a time, pauses on it, and finishes once the set is exhausted', () => {
    let s = main(loaded([]), { type: 'tutorial_done' }, { type: 'test_passed' }, { type: 'started' });
    s = main(s, { type: 'case_done', caseId: 'compas_main_a_002' });
    expect(s.pausingAfter).toBeNull();
    s = main(s, { type: 'case_done', caseId: 'compas_main_a_001' }, { type: 'case_done', caseId: 'compas_main_a_001' });
    expect(currentCase(s)?.case_number).toBe(1);
    s = main(s, { type: 'next_case' }, { type: 'case_done', caseId: 'compas_main_a_002' }, { type: 'next_case' }, { type: 'case_done', caseId: 'compas_main_a_003' }, { type: 'next_case' });
    expect(s.screen).toEqual({ kind: 'finishing', offline: false });
    const summary = { completed: 3, total: 3, judgementChanges: 1, finalAgreesWithAi: 2, meanRatings: {} };
    expect(main(s, { type: 'confirmed', summary }).screen).toEqual({ kind: 'complete', summary });
  });
});

describe('understanding test', () => {
  const questions = drawUnderstandingQuestions();
  const test = (state: TestState, ...events: TestEvent[]) => events.reduce(testReducer, state);
  const answerAll = (state: TestState, right: (i: number) => boolean) =>
    questions.reduce(
      (s, q, i) => test(s, { type: 'selected', option: right(i) ? q.correct : q.options.find((o) => o !== q.correct)! }, { type: 'checked' }, { type: 'next' }),
      state,
    );

  it('needs an answer before check, and passes only at 5 of 5', () => {
    const start = newAttempt('attempt-1', questions);
    expect(test(start, { type: 'checked' })).toBe(start);
    const failed = answerAll(start, (i) => i !== 3);
    expect(failed.result).toEqual({ correct: 4, total: 5, passed: false });
    expect(failed.answers).toHaveLength(5);
    const passed = answerAll(start, () => true);
    expect(passed.result).toEqual({ correct: 5, total: 5, passed: true });
    // A passed attempt cannot be retried; a failed one starts afresh under a new attempt ID.
    expect(test(passed, { type: 'retried', attemptId: 'attempt-2', questions })).toBe(passed);
    const retried = test(failed, { type: 'retried', attemptId: 'attempt-2', questions: drawUnderstandingQuestions() });
    expect(retried).toMatchObject({ attemptId: 'attempt-2', index: 0, answers: [], result: null });
    expect(currentQuestion(retried)).not.toBeNull();
  });

  it('keeps the answer once checked', () => {
    const q = questions[0]!;
    const checked = test(newAttempt('a', questions), { type: 'selected', option: q.correct }, { type: 'checked' }, { type: 'selected', option: 'other' });
    expect(checked.selected).toBe(q.correct);
  });
});

describe('explanation bars', () => {
  it('run from the centre toward the side they push to, as long as their share of the largest', () => {
    expect(barGeometry(0.4, 0.4)).toEqual({ left: 50, width: 50 });
    expect(barGeometry(-0.2, 0.4)).toEqual({ left: 25, width: 25 });
    expect(barGeometry(0, 0.4)).toEqual({ left: 50, width: 0 });
    // Never past the track's end.
    expect(barGeometry(-0.9, 0.4)).toEqual({ left: 0, width: 50 });
  });

  it('are listed largest share first, each label with its name, value and share', () => {
    const t = ((key: string, options?: Record<string, unknown>) =>
      key === 'main.panel.barLabel' ? `${String(options?.name)}: ${String(options?.value)} (${String(options?.percent)}%)` : String(options?.defaultValue ?? key)) as unknown as Parameters<typeof explanationRows>[0];
    const rows = explanationRows(t, 'en', 'compas', {
      shown: [
        { feature: 'a', importance: 0.1, abs_importance: 0.1, raw_shap: 0.1 },
        { feature: 'b', importance: -0.896, abs_importance: 0.896, raw_shap: -1 },
        { feature: 'c', importance: 0.004, abs_importance: 0.004, raw_shap: 0.01 },
      ],
    }, { a: 1, b: 2, c: 3 });
    expect(rows.map((r) => r.key)).toEqual(['b', 'a', 'c']);
    expect(rows[0]!.share).toBe(-0.896);
    expect(rows[2]!.label).toMatch(/\(<1%\)$/);
  });
});
