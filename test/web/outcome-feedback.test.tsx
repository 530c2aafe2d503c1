/**
 * The outcome after a stored case (issue #58, element 4), as the page shows it: only once the case
 * is on the server, the server's verdicts (never worked out here), the AI's line only where the AI
 * was shown, and moving on reports how long it was on screen.
 */
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutcomeFeedback } from '../../web/features/main-experiment/outcome-feedback';
import en from '../../web/i18n/en.json';
import { datasetTranslations } from '../../worker/schemas/datasets';
import { renderScreen } from './render';

const given = (ai: 0 | 1 | null) => ({
  session_id: 'AB12CD34',
  case_id: 'compas_main_007',
  ground_truth: 1,
  final_prediction: 0,
  final_correct: false,
  ai_prediction: ai,
  ai_correct: ai === null ? null : ai === 1,
  served_at: '2026-11-29T10:00:00.000Z',
  viewing_time_ms: null,
});

function stubServer(feedback: ReturnType<typeof given>) {
  const calls: { url: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      calls.push({ url: String(url), body: init?.body ? JSON.parse(String(init.body)) : null });
      return new Response(JSON.stringify(feedback), { status: 200, headers: { 'Content-Type': 'application/json' } });
    }),
  );
  return calls;
}

afterEach(() => vi.unstubAllGlobals());

describe('OutcomeFeedback', () => {
  it('asks the server only once the case is stored, shows its verdicts, and reports the viewing time on moving on', async () => {
    const calls = stubServer(given(1));
    let storedNow: () => void = () => {};
    const stored = new Promise<void>((resolve) => (storedNow = resolve));
    const onNext = vi.fn();
    renderScreen(<OutcomeFeedback sessionId="AB12CD34" caseId="compas_main_007" datasetType="compas" stored={() => stored} onNext={onNext} />, { lng: 'en' });
    expect(screen.getByText(en.main.feedback.loading)).toBeTruthy();
    expect(calls).toHaveLength(0);
    storedNow();
    await screen.findByTestId('outcome-feedback');
    expect(calls[0]!.url).toContain('/api/experiments/main/feedback?session_id=AB12CD34&case_id=compas_main_007');
    const labels = datasetTranslations('en').main.labels.compas as { positive: string; negative: string };
    expect(screen.getByTestId('feedback-truth').textContent).toContain(labels.positive);
    expect(screen.getByTestId('feedback-yours').getAttribute('data-correct')).toBe('false');
    expect(screen.getByTestId('feedback-yours').textContent).toContain(en.main.feedback.wrong);
    expect(screen.getByTestId('feedback-ai').getAttribute('data-correct')).toBe('true');
    fireEvent.click(screen.getByRole('button', { name: en.main.feedback.next }));
    expect(onNext).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1]!.url).toContain('/api/experiments/main/feedback-viewed');
    expect(calls[1]!.body).toMatchObject({ session_id: 'AB12CD34', case_id: 'compas_main_007' });
    expect((calls[1]!.body as { feedback_viewing_time_ms: number }).feedback_viewing_time_ms).toBeGreaterThanOrEqual(0);
  });

  it('has no line about the AI where none was shown, and offers to try again when the case has not reached the server', async () => {
    stubServer(given(null));
    renderScreen(<OutcomeFeedback sessionId="AB12CD34" caseId="compas_main_007" datasetType="compas" stored={async () => {}} onNext={() => {}} />, { lng: 'en' });
    await screen.findByTestId('outcome-feedback');
    expect(screen.queryByTestId('feedback-ai')).toBeNull();

    const onNext = vi.fn();
    renderScreen(<OutcomeFeedback sessionId="AB12CD34" caseId="compas_main_008" datasetType="compas" stored={() => Promise.reject(new Error('offline'))} onNext={onNext} />, { lng: 'en' });
    await screen.findByText(en.main.feedback.failed);
    expect(screen.getByRole('button', { name: en.main.feedback.retry })).toBeTruthy();
    fireEvent.click(screen.getAllByRole('button', { name: en.main.feedback.next }).at(-1)!);
    expect(onNext).toHaveBeenCalledTimes(1);
  });
});
