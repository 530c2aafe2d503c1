/**
 * A judgement step's time limit (issue #58, element 5), as the page runs it: the countdown on the
 * answer bar starts from the step on screen and is cut to what the server's clock has left; when it
 * runs out, `submit` takes the choice made so far (or the first complete one after), `overrun`
 * keeps the step open, and either way the judgement and its checkpoint say it ran out.
 */
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CaseFlow } from '../../web/features/main-experiment/case-flow';
import type { CaseRecord } from '../../web/features/main-experiment/case-flow-machine';
import { planOf, type ConditionView } from '../../web/features/main-experiment/condition-plan';
import en from '../../web/i18n/en.json';
import type { MainCase } from '../../worker/schemas/main-experiment';
import { DATASETS } from '../../worker/schemas/datasets';
import { renderScreen } from './render';

const item: MainCase = { case_id: 'compas_main_a_001', case_number: 1, dataset_type: 'compas', features: { age: 23, priors_count: 6, sex: 'Male' }, alignment_alpha: null };
const ALONE: ConditionView = {
  name: 'timed',
  shows: 'none',
  ai_timing: null,
  judgements: 2,
  outcome_feedback: false,
  advice_on_request: false,
  advice_wait_seconds: null,
  time_limit: { seconds: 20, on_timeout: 'submit' },
  incentive: null,
};

/** The Worker: every checkpoint answered with `leftMs` of the step's time left by its clock. */
function stubServer(leftMs: Record<string, number>) {
  const calls: Record<string, unknown>[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (_url: string, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      calls.push(body);
      const kept = { case_id: item.case_id, initial: null, explanation_viewing_time_ms: null, final: null, advice_served: false, advice_wait_left_ms: null, step_time_left_ms: leftMs[String(body.step)] ?? null };
      return new Response(JSON.stringify({ success: true, kept }), { status: 200, headers: { 'Content-Type': 'application/json' } });
    }),
  );
  return calls;
}

const choose = (positive: boolean) => {
  fireEvent.click(screen.getByRole('radio', { name: DATASETS.compas.texts.en[positive ? 'positive' : 'negative'] }));
  fireEvent.click(screen.getByRole('radio', { name: `3. ${en.judgement.confidenceLevels[2]}` }));
};

afterEach(() => vi.unstubAllGlobals());

describe('a time limit per judgement step', () => {
  it('submit: counts down from the server’s word, takes the choice made when it runs out, or the first one after', async () => {
    const calls = stubServer({ opened: 1100, initial: 900 });
    const onDone = vi.fn<(record: CaseRecord) => void>();
    renderScreen(<CaseFlow sessionId="AB12CD34" item={item} datasetType="compas" alpha={null} plan={planOf(ALONE)} onDone={onDone} recorded={{ kept: null, onMovedOn: () => {} }} />, {
      lng: 'en',
    });
    const countdown = await screen.findByTestId('step-countdown');
    await waitFor(() => expect(calls.some((c) => c.step === 'opened')).toBe(true));
    // The server's 1.1 s, not the limit's 20 s.
    await waitFor(() => expect(countdown.textContent).toMatch(/^[12] s left$/));
    choose(true);
    // Run out with a complete choice: it is the initial judgement, said to have run out.
    await waitFor(() => expect(calls.find((c) => c.step === 'initial')).toMatchObject({ initial_prediction: 1, initial_confidence: 3, initial_timed_out: true }), { timeout: 3000 });
    // The final step, nothing chosen when it runs out: it waits for a choice and takes the first complete one.
    await waitFor(() => expect(screen.getByTestId('step-countdown').textContent).toBe(en.main.timeLimit.upSubmit), { timeout: 3000 });
    expect(onDone).not.toHaveBeenCalled();
    choose(false);
    await waitFor(() => expect(onDone).toHaveBeenCalledTimes(1));
    expect(onDone.mock.calls[0]![0]).toMatchObject({ initial: { prediction: 1, timed_out: true }, final: { prediction: 0, timed_out: true } });
  });

  it('overrun: the step stays open when the time is up, and the judgement given after says so', async () => {
    stubServer({ opened: 600 });
    const onDone = vi.fn<(record: CaseRecord) => void>();
    const plan = planOf({ ...ALONE, judgements: 1, time_limit: { seconds: 20, on_timeout: 'overrun' } });
    renderScreen(<CaseFlow sessionId="AB12CD34" item={item} datasetType="compas" alpha={null} plan={plan} onDone={onDone} recorded={{ kept: null, onMovedOn: () => {} }} />, { lng: 'en' });
    choose(true);
    await waitFor(() => expect(screen.getByTestId('step-countdown').textContent).toBe(en.main.timeLimit.upOverrun), { timeout: 3000 });
    expect(onDone).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: en.judgement.submit }));
    await waitFor(() => expect(onDone).toHaveBeenCalledTimes(1));
    expect(onDone.mock.calls[0]![0]).toMatchObject({ initial: null, final: { prediction: 1, timed_out: true } });
  });

  it('without a limit there is no countdown and nothing is said of time', async () => {
    const calls = stubServer({});
    const onDone = vi.fn<(record: CaseRecord) => void>();
    renderScreen(
      <CaseFlow sessionId="AB12CD34" item={item} datasetType="compas" alpha={null} plan={planOf({ ...ALONE, time_limit: null })} onDone={onDone} recorded={{ kept: null, onMovedOn: () => {} }} />,
      { lng: 'en' },
    );
    choose(true);
    fireEvent.click(screen.getByRole('button', { name: en.judgement.submit }));
    await screen.findByText(en.main.finalLeadAlone);
    expect(screen.queryByTestId('step-countdown')).toBeNull();
    await waitFor(() => expect(calls.some((c) => c.step === 'initial')).toBe(true));
    expect(calls.some((c) => c.step === 'opened' || 'initial_timed_out' in c)).toBe(false);
  });
});
