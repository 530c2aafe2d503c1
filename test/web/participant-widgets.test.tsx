import { act, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CaseCard } from '../../web/components/ui/case-card';
import { JudgementInput } from '../../web/components/ui/judgement-input';
import { ProgressBar } from '../../web/components/ui/progress-bar';
import { ResumePanel } from '../../web/components/ui/resume-panel';
import ja from '../../web/i18n/ja.json';
import { renderScreen } from './render';
import { datasetTranslations, DATASETS } from '../../worker/schemas/datasets';

const compasCase = {
  case_id: 'compas_pre_007',
  case_number: 7,
  dataset_type: 'compas' as const,
  features: { sex: 'Male', age: 31, race: 'Caucasian', juv_fel_count: 0, juv_misd_count: 1, juv_other_count: 0, priors_count: 4, c_charge_degree: 'M' },
};

describe('CaseCard', () => {
  it('shows every field with its value in words', () => {
    renderScreen(<CaseCard case={compasCase} datasetType="compas" />);
    expect(screen.getByRole('heading', { name: 'ケース 7' })).toBeTruthy();
    expect(screen.getByText(DATASETS.compas.texts.ja.task)).toBeTruthy();
    expect(screen.getByText(datasetTranslations('ja').values.compas!.c_charge_degree!.M!)).toBeTruthy();
    expect(screen.getByText('31歳')).toBeTruthy();
    expect(document.querySelectorAll('.case-feature')).toHaveLength(8);
  });

  it('formats speed-dating incomes as a percentile and partner ratings out of 10', () => {
    const features = { gender: 1, age: 27, race: 4, field_cd: 5, income: 43185, career_c: 5, pf_o_att: 20, pf_o_sin: 20, pf_o_int: 20, pf_o_fun: 20, pf_o_amb: 10, pf_o_sha: 10, attr_o: 7, sinc_o: 8, intel_o: 8, fun_o: 6.5, amb_o: 7, shar_o: 5 };
    renderScreen(<CaseCard case={{ case_id: 'speed_dating_pre_001', case_number: 1, dataset_type: 'speed_dating', features }} datasetType="speed_dating" />, { lng: 'en' });
    expect(screen.getByText('$43,185 (top 50%)')).toBeTruthy();
    expect(screen.getByText('6.5/10')).toBeTruthy();
    expect(screen.getByText(datasetTranslations('en').values.speed_dating!.field_cd!['5']!)).toBeTruthy();
  });

  it('describes each field in a dialog', async () => {
    renderScreen(<CaseCard case={compasCase} datasetType="compas" />);
    fireEvent.click(screen.getByRole('button', { name: ja.caseCard.details }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain(datasetTranslations('ja').fields.compas!.priors_count!.description);
  });

  it('shows loading and dataset-error states', () => {
    const { unmount } = renderScreen(<CaseCard case={null} datasetType="compas" />);
    expect(screen.getByText(ja.caseCard.loading)).toBeTruthy();
    unmount();
    renderScreen(<CaseCard case={compasCase} datasetType="adult_income" />);
    expect(screen.getByRole('alert').textContent).toBe(ja.caseCard.datasetError);
  });
});

describe('JudgementInput', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout'] }));
  afterEach(() => vi.useRealTimers());

  it('needs both a prediction and a confidence, then delivers after 300 ms', () => {
    const onSubmit = vi.fn();
    renderScreen(<JudgementInput datasetType="compas" onSubmit={onSubmit} />);
    const submit = screen.getByRole('button', { name: ja.judgement.submit });
    expect((submit as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('radio', { name: DATASETS.compas.texts.ja.positive }));
    expect((submit as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole('radio', { name: `4. ${ja.judgement.confidenceLevels[3]}` }));
    fireEvent.click(submit);
    expect(screen.getByRole('button', { name: ja.judgement.sending })).toBeTruthy();
    act(() => vi.advanceTimersByTime(299));
    expect(onSubmit).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1));
    expect(onSubmit).toHaveBeenCalledWith({ prediction: 1, confidence: 4 }, expect.any(Number));
  });

  it('collects an optional reason and sends it trimmed with the judgement', () => {
    const onSubmit = vi.fn();
    renderScreen(<JudgementInput datasetType="adult_income" onSubmit={onSubmit} />);
    expect(screen.queryByLabelText(ja.judgement.reasoning)).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: ja.judgement.addReasoning }));
    fireEvent.change(screen.getByLabelText(ja.judgement.reasoning), { target: { value: '  資産売却益が大きい  ' } });
    fireEvent.click(screen.getByRole('radio', { name: DATASETS.adult_income.texts.ja.negative }));
    fireEvent.click(screen.getByRole('radio', { name: `2. ${ja.judgement.confidenceLevels[1]}` }));
    fireEvent.click(screen.getByRole('button', { name: ja.judgement.submit }));
    act(() => vi.advanceTimersByTime(300));
    expect(onSubmit).toHaveBeenCalledWith({ prediction: 0, confidence: 2, reasoning: '資産売却益が大きい' }, expect.any(Number));
  });
});

describe('JudgementInput decision time', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('reports the click 1,000 ms after the case was shown as 1,000 ms, not 1,300 with the sending pause', () => {
    const onSubmit = vi.fn();
    renderScreen(<JudgementInput datasetType="compas" onSubmit={onSubmit} />);
    const shownAt = performance.now();
    fireEvent.click(screen.getByRole('radio', { name: DATASETS.compas.texts.ja.negative }));
    fireEvent.click(screen.getByRole('radio', { name: `3. ${ja.judgement.confidenceLevels[2]}` }));
    act(() => vi.advanceTimersByTime(1000));
    fireEvent.click(screen.getByRole('button', { name: ja.judgement.submit }));
    act(() => vi.advanceTimersByTime(300));
    expect(onSubmit).toHaveBeenCalledTimes(1);
    const decidedAt = onSubmit.mock.calls[0]![1] as number;
    expect(performance.now() - shownAt).toBe(1300);
    expect(decidedAt - shownAt).toBe(1000);
  });
});

describe('ProgressBar', () => {
  it('marks the current phase, shows the percentage and a completion badge', () => {
    const { unmount } = renderScreen(<ProgressBar phase="pre_experiment" value={58} max={200} />);
    expect(screen.getByText(ja.progress.phases.pre_experiment).getAttribute('aria-current')).toBe('step');
    expect(screen.getByText(ja.progress.phases.preparation).getAttribute('data-state')).toBe('done');
    expect(screen.getByText('29%')).toBeTruthy();
    expect(screen.queryByText(ja.progress.complete)).toBeNull();
    unmount();
    // One answer short (the 200th still on its way) is not complete: 99 %, no badge.
    const short = renderScreen(<ProgressBar phase="pre_experiment" value={199} max={200} />);
    expect(screen.getByText('99%')).toBeTruthy();
    expect(screen.queryByText(ja.progress.complete)).toBeNull();
    short.unmount();
    renderScreen(<ProgressBar phase="pre_experiment" value={200} max={200} />);
    expect(screen.getByText(ja.progress.complete)).toBeTruthy();
  });
});

describe('ResumePanel', () => {
  afterEach(() => vi.unstubAllGlobals());

  function stubCheck(answer: unknown) {
    const fetchMock = vi.fn(async () => new Response(JSON.stringify(answer), { status: 200, headers: { 'Content-Type': 'application/json' } }));
    vi.stubGlobal('fetch', fetchMock);
    return fetchMock;
  }

  it('checks 500 ms after typing stops, from 2 characters, and upper-cases the ID', async () => {
    const fetchMock = stubCheck({ exists: true, canResume: true, preExperimentCount: 56, mainExperimentCount: 0, userId: 3, isCompleted: false, integrityError: false });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      renderScreen(<ResumePanel />);
      const input = screen.getByLabelText(ja.resume.idLabel);
      fireEvent.change(input, { target: { value: 'a' } });
      act(() => vi.advanceTimersByTime(5000));
      expect(fetchMock).not.toHaveBeenCalled();
      fireEvent.change(input, { target: { value: 'ab-12cd3' } });
      act(() => vi.advanceTimersByTime(300));
      // Typing again restarts the wait.
      fireEvent.change(input, { target: { value: 'ab-12cd34x' } });
      expect((input as HTMLInputElement).value).toBe('AB12CD34');
      act(() => vi.advanceTimersByTime(499));
      expect(fetchMock).not.toHaveBeenCalled();
      act(() => vi.advanceTimersByTime(1));
      expect(fetchMock).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
    expect(JSON.parse(String((fetchMock.mock.calls[0] as unknown as [string, RequestInit])[1].body))).toEqual({ participant_name: 'AB12CD34' });
    await screen.findByText(/56 \/ 200/);
    expect((screen.getByRole('button', { name: ja.resume.button }) as HTMLButtonElement).disabled).toBe(false);
    expect(screen.getByText(ja.resume.idHint)).toBeTruthy();
  });

  it('finds an ID typed with look-alike letters under its digits, and resumes that ID', async () => {
    const fetchMock = vi.fn(async (_url: string, init: RequestInit) => {
      const { participant_name } = JSON.parse(String(init.body)) as { participant_name: string };
      const exists = participant_name === '7K30M1QA';
      return new Response(JSON.stringify({ exists, canResume: exists, preExperimentCount: exists ? 12 : 0, mainExperimentCount: 0, userId: exists ? 4 : null, isCompleted: false, integrityError: false }), {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      });
    });
    vi.stubGlobal('fetch', fetchMock);
    renderScreen(<ResumePanel initialId="7k3OmIqa" />);
    await screen.findByText(/12 \/ 200/, undefined, { timeout: 2000 });
    expect(screen.getByText(ja.resume.readAs.replace('{{id}}', '7K30M1QA'))).toBeTruthy();
    expect(fetchMock.mock.calls.map((c) => JSON.parse(String(c[1].body)).participant_name)).toEqual(['7K30M1QA']);
  });

  it('blocks resuming on an integrity error', async () => {
    stubCheck({ exists: true, canResume: false, preExperimentCount: 10, mainExperimentCount: 0, userId: 3, isCompleted: false, integrityError: true });
    renderScreen(<ResumePanel initialId="AB12CD34" />);
    await screen.findByText(ja.resume.integrity, undefined, { timeout: 2000 });
    expect((screen.getByRole('button', { name: ja.resume.button }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('says when the ID is not found', async () => {
    stubCheck({ exists: false, canResume: false, preExperimentCount: 0, mainExperimentCount: 0, userId: null, isCompleted: false, integrityError: false });
    renderScreen(<ResumePanel initialId="ZZ99ZZ99" />);
    const message = await screen.findByText(ja.resume.notFound, undefined, { timeout: 2000 });
    expect(message.className).toContain('notice');
  });

  it('alerts when resuming with an empty ID', () => {
    const alert = vi.fn();
    vi.stubGlobal('alert', alert);
    renderScreen(<ResumePanel />);
    fireEvent.click(screen.getByRole('button', { name: ja.resume.button }));
    expect(alert).toHaveBeenCalledWith(ja.resume.enterId);
  });
});
