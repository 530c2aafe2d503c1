/**
 * The AI held back on a case (issue #58, element 2), as the page runs it: the initial judgement is
 * sent on its own, the wait counted down from the server's answer, the AI asked for only when the
 * participant presses the button (nothing is fetched before), and a final judgement without it ends
 * the case with no questions.
 */
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CaseFlow } from '../../web/features/main-experiment/case-flow';
import type { CaseRecord } from '../../web/features/main-experiment/case-flow-machine';
import { planOf } from '../../web/features/main-experiment/condition-plan';
import en from '../../web/i18n/en.json';
import type { MainCase } from '../../worker/schemas/main-experiment';
import { DATASETS } from '../../worker/schemas/datasets';
import { renderScreen } from './render';

const item: MainCase = { case_id: 'compas_main_a_001', case_number: 1, dataset_type: 'compas', features: { age: 23, priors_count: 6, sex: 'Male' }, alignment_alpha: null };
const plan = planOf({ name: 'on_request', shows: 'ai_prediction', ai_timing: 'after_initial', judgements: 2, outcome_feedback: false, advice_on_request: true, advice_wait_seconds: 2, time_limit: null, incentive: null });
const served = {
  success: true,
  session_id: 'AB12CD34',
  case_id: item.case_id,
  dataset_type: 'compas',
  prediction: 1,
  ai_probability: null,
  ai_confidence: null,
  ai_base_probability: null,
  model_identifier: 'ai',
  model_test_accuracy: 0.69,
  accuracy_statement: 'measured',
  stated_accuracy: 0.69,
  alignment_alpha: null,
  ai_feature_importance: [],
  user_feature_importance: [],
  shown_feature_importance: [],
  explanation_kind: 'prediction_only',
  human_aligned_used: false,
  user_model_available: false,
  user_model_identifier: null,
  user_model_prediction: null,
  user_model_probability: null,
  served_explanation_id: 41,
};

/** The Worker: the kept initial judgement answered with `waitLeftMs` of the wait, and the AI served. */
function stubServer(waitLeftMs: number) {
  const calls: { url: string; body: Record<string, unknown> | null }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const body = init?.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : null;
      calls.push({ url: String(url), body });
      const answer = String(url).includes('trial-progress')
        ? { success: true, kept: { case_id: item.case_id, initial: null, explanation_viewing_time_ms: null, final: null, advice_served: false, advice_wait_left_ms: waitLeftMs } }
        : served;
      return new Response(JSON.stringify(answer), { status: 200, headers: { 'Content-Type': 'application/json' } });
    }),
  );
  return calls;
}

async function judge(positive: boolean) {
  fireEvent.click(screen.getByRole('radio', { name: DATASETS.compas.texts.en[positive ? 'positive' : 'negative'] }));
  fireEvent.click(screen.getByRole('radio', { name: `3. ${en.judgement.confidenceLevels[2]}` }));
  fireEvent.click(screen.getByRole('button', { name: en.judgement.submit }));
}

afterEach(() => vi.unstubAllGlobals());

describe('advice on request, after a forced wait', () => {
  it('counts the wait down from the server’s answer, fetches the AI only when asked, and asks about it once seen', async () => {
    const calls = stubServer(1200);
    const onDone = vi.fn<(record: CaseRecord) => void>();
    renderScreen(<CaseFlow sessionId="AB12CD34" item={item} datasetType="compas" alpha={null} plan={plan} onDone={onDone} recorded={{ kept: null, onMovedOn: () => {} }} />, { lng: 'en' });
    await judge(true);
    const offer = await screen.findByTestId('advice-offer');
    await waitFor(() => expect(calls.some((c) => c.url.includes('trial-progress') && c.body?.step === 'initial')).toBe(true));
    const button = offer.querySelector('button')!;
    await waitFor(() => expect(button.textContent).toMatch(/^The AI's advice is available in [12] s$/));
    expect(button.disabled).toBe(true);
    await waitFor(() => expect(button.textContent).toBe(en.main.advice.offerPrediction), { timeout: 3000 });
    expect(calls.some((c) => c.url.includes('explanation'))).toBe(false);
    act(() => fireEvent.click(button));
    await screen.findByTestId('final-ai-reminder');
    const asked = calls.filter((c) => c.url.includes('human-aligned-explanation'));
    expect(asked).toHaveLength(1);
    // The request carries the initial judgement already kept.
    expect(asked[0]!.body).toMatchObject({ session_id: 'AB12CD34', case_id: item.case_id, initial_prediction: 1, initial_confidence: 3 });
    await judge(false);
    // The question about the AI it saw follows.
    await screen.findByText(en.main.survey.submit);
  });

  it('a final judgement without the AI ends the case: nothing of the AI fetched, no questions', async () => {
    const calls = stubServer(0);
    const onDone = vi.fn<(record: CaseRecord) => void>();
    renderScreen(<CaseFlow sessionId="AB12CD34" item={item} datasetType="compas" alpha={null} plan={plan} onDone={onDone} recorded={{ kept: null, onMovedOn: () => {} }} />, { lng: 'en' });
    await judge(true);
    await screen.findByTestId('advice-offer');
    await judge(false);
    await waitFor(() => expect(onDone).toHaveBeenCalledTimes(1));
    expect(onDone.mock.calls[0]![0]).toMatchObject({ explanation: null, explanationViewMs: null, survey: {}, final: { prediction: 0 } });
    expect(calls.some((c) => c.url.includes('explanation'))).toBe(false);
  });
});
