import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidAmountError, percentileOf } from '../../web/lib/percentile';
import { AnswerOutbox, AnswerRejected, preOutboxKey, type OutboxAnswer } from '../../web/lib/outbox';
import { errorLog } from '../../web/lib/error-log';
import { resumeDestination, resumeErrorKey, UnknownResumeAction, type ResumeData } from '../../web/lib/resume';
import { datasetOf } from '../../worker/schemas/datasets';
import { formatValue } from '../../web/lib/case-format';
import { DATASETS } from '../../worker/schemas/datasets';
import { allTextsI18n } from './render';
import en from '../../web/i18n/en.json';
import { parseDatasetDefinition, type DatasetColumn } from '../../worker/schemas/dataset-definition';
import { loanDefinition } from '../helpers/synthetic-dataset';

const answer = (caseId: string): OutboxAnswer => ({
  case_id: caseId,
  case_number: 1,
  prediction: 1,
  confidence: 3,
  response_time_ms: 1000,
  answered_at: '2026-01-01T00:00:00.000Z',
});

describe('AnswerOutbox', () => {
  afterEach(() => vi.useRealTimers());

  it('saves first, sends, and forgets nothing across a new instance (a reload)', async () => {
    const sent: string[] = [];
    const box = new AnswerOutbox(preOutboxKey('AB12CD34'), async (a) => void sent.push(a.case_id));
    box.add(answer('c1'));
    box.add(answer('c1'));
    await box.flush();
    expect(sent).toEqual(['c1']);
    expect(box.state()).toMatchObject({ total: 1, pending: 0 });
    const reloaded = new AnswerOutbox(preOutboxKey('AB12CD34'), async () => {});
    expect(reloaded.answers().map((a) => a.case_id)).toEqual(['c1']);
    expect(reloaded.state().pending).toBe(0);
  });

  it('keeps answers while offline and sends each once when the network returns', async () => {
    vi.useFakeTimers();
    let online = false;
    const sent: string[] = [];
    const box = new AnswerOutbox(preOutboxKey('OFFLINE1'), async (a) => {
      if (!online) throw new TypeError('Failed to fetch');
      sent.push(a.case_id);
    });
    for (const id of ['a', 'b', 'c']) box.add(answer(id));
    await vi.advanceTimersByTimeAsync(0);
    expect(box.state().pending).toBe(3);
    online = true;
    window.dispatchEvent(new Event('online'));
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(2000);
    expect(sent).toEqual(['a', 'b', 'c']);
    expect(box.state().pending).toBe(0);
    box.dispose();
  });

  it('takes a refused answer out with its reason, logged, and goes on with the others', async () => {
    const sent: string[] = [];
    const box = new AnswerOutbox(preOutboxKey('REFUSE01'), async (a) => {
      sent.push(a.case_id);
      if (a.case_id === 'bad') throw new AnswerRejected('case not in set');
    });
    box.add(answer('bad'));
    box.add(answer('good'));
    await box.flush();
    expect(box.state()).toMatchObject({ total: 1, pending: 0, refused: [{ key: 'bad', reason: 'case not in set' }] });
    expect(box.answers().map((a) => a.case_id)).toEqual(['good']);
    expect(errorLog.list().some((e) => e.type === 'answer_refused' && e.message.includes('bad') && e.message.includes('case not in set'))).toBe(true);
    // Never sent again, in this page or after a reload.
    await box.flush();
    expect(sent).toEqual(['bad', 'good']);
    expect(new AnswerOutbox(preOutboxKey('REFUSE01'), async () => {}).answers().map((a) => a.case_id)).toEqual(['good']);
  });

  it('takes out answers an older version saved as refused, with their reason', () => {
    window.localStorage.setItem(
      'pre_experiment_responses_LEGACY01',
      JSON.stringify([{ ...answer('old'), acked: false, rejected: 'case not in set' }, { ...answer('ok'), acked: false }]),
    );
    const box = new AnswerOutbox(preOutboxKey('LEGACY01'), () => new Promise(() => {}));
    expect(box.answers().map((a) => a.case_id)).toEqual(['ok']);
    expect(box.state().refused).toEqual([{ key: 'old', reason: 'case not in set' }]);
  });

  it('marks answers the server already holds as acknowledged', () => {
    const box = new AnswerOutbox(preOutboxKey('ACK00001'), () => new Promise(() => {}));
    box.add(answer('x'));
    box.acknowledge(['x']);
    expect(box.state().pending).toBe(0);
  });
});

describe('percentileOf, with the speed-dating incomes of the spec', () => {
  const income = datasetOf('speed_dating').columns.find((c) => c.name === 'income')!;
  if (income.kind !== 'numeric' || !income.statistics) throw new Error('speed dating income has no statistics');
  const s = income.statistics;
  const incomePercentile = (income: number) => percentileOf(income, s);
  it.each([
    [s.min, 1],
    [s.q1, 25],
    [s.median, 50],
    [s.q3, 75],
    [s.max, 100],
    [s.max * 2, 100],
  ])('puts %d at percentile %d', (income, percentile) => {
    expect(incomePercentile(income).percentile).toBe(percentile);
  });

  it('shows the top share and fails on a negative income', () => {
    expect(incomePercentile(s.median).top).toBe(50);
    expect(() => incomePercentile(-1)).toThrow(InvalidAmountError);
    expect(() => incomePercentile(-1)).toThrow('invalid income value');
  });
});

describe('resumeDestination', () => {
  const base: ResumeData = {
    success: true,
    message: '',
    sessionId: 'AB12CD34',
    participantName: 'AB12CD34',
    userId: 1,
    currentPhase: 'pre_experiment',
    action: 'resume_pre_experiment',
    nextCaseNumber: 57,
    preExperimentCount: 56,
    mainExperimentCount: 0,
    remainingCases: 144,
    caseSet: [],
    existingResponses: [],
    isMainExperimentCompleted: false,
    isPostSurveyCompleted: false,
    integrityError: false,
    integrityMessage: null,
    confirmedDatasetType: 'compas',
    userModelTrained: false,
    resume_url: '/experiment/pre',
  };

  it('follows the spec order: complete, post-survey, main, pre', () => {
    expect(resumeDestination({ ...base, isPostSurveyCompleted: true, isMainExperimentCompleted: true }).path).toBe('/experiment/complete');
    expect(resumeDestination({ ...base, action: 'screened_out', currentPhase: 'main_experiment' }).path).toBe('/experiment/screened-out');
    expect(resumeDestination({ ...base, isMainExperimentCompleted: true }).path).toBe('/experiment/post-survey');
    expect(resumeDestination({ ...base, action: 'start_post_survey' }).path).toBe('/experiment/post-survey');
    expect(resumeDestination({ ...base, action: 'start_main_experiment', currentPhase: 'main_experiment' }).path).toBe('/experiment/main');
    expect(resumeDestination({ ...base, action: 'give_consent', currentPhase: 'consent' })).toEqual({
      path: '/experiment/consent',
      state: { sessionId: 'AB12CD34', participantName: 'AB12CD34', datasetType: 'compas' },
    });
    const pre = resumeDestination(base);
    expect(pre).toEqual({ path: '/experiment/pre', state: { resumeData: base, startFromCase: 57, fromResume: true } });
  });

  it('refuses resume data without success and unknown actions, each with its own message', () => {
    const failure = (data: ResumeData) => {
      try {
        resumeDestination(data);
      } catch (err) {
        return err;
      }
      throw new Error('expected resumeDestination to throw');
    };
    const integrity = failure({ ...base, success: false });
    const unknown = failure({ ...base, action: 'completed', currentPhase: 'completed' });
    expect(integrity).toBeInstanceOf(UnknownResumeAction);
    expect(resumeErrorKey(integrity)).toBe('resume.integrity');
    expect(resumeErrorKey(unknown)).toBe('resume.unknownAction');
  });
});

describe('case values from a definition', () => {
  const loan = parseDatasetDefinition(loanDefinition('0'.repeat(64)));
  const column = (name: string) => loan.columns.find((c) => c.name === name)!;
  const i18n = allTextsI18n('en');
  const t = i18n.getFixedT('en');
  const tJa = i18n.getFixedT('ja');

  it("shows a researcher's own columns as their definition says, in either language", () => {
    expect(formatValue(t, 'en', column('education'), 2)).toBe("Bachelor's");
    expect(formatValue(tJa, 'ja', column('education'), 2)).toBe('学士');
    expect(formatValue(t, 'en', column('region'), 3)).toBe('South');
    expect(formatValue(t, 'en', column('housing'), 'mortgage')).toBe('Mortgage');
    expect(formatValue(t, 'en', column('income'), 52000)).toBe('$52,000');
    expect(formatValue(t, 'en', column('years_employed'), 4)).toBe('4 years');
    expect(formatValue(t, 'en', column('debt_ratio'), 0.35)).toBe('0.35');
    expect(formatValue(t, 'en', column('credit_score'), null)).toBe(en.common.unknown);
  });

  it('shows speed dating\'s importance points as its definition says: whole points of 100 (issue #59, point 7)', () => {
    const importance = DATASETS.speed_dating.columns.find((c) => c.name === 'pf_o_att');
    expect(formatValue(tJa, 'ja', importance, 20.93)).toBe('21点');
    expect(formatValue(t, 'en', importance, 15)).toBe('15 pts');
  });

  it("shows a column's decimals and its unit in each language, and the place of any quantity among its values", () => {
    // As a measurement of a breast-mass dataset would be defined (issue #44: 0.09401 showed as 0.094).
    const measured = parseDatasetDefinition({
      ...loanDefinition('0'.repeat(64)),
      columns: [
        { name: 'smoothness', kind: 'numeric', decimals: 5, unit: { en: 'mm', ja: 'ミリ' }, meaning: 'm', label: { en: 'S', ja: 'S' }, description: { en: 'S', ja: 'S' } },
        {
          name: 'temperature',
          kind: 'numeric',
          format: 'percentile',
          decimals: 1,
          unit: { en: '°C', ja: '℃' },
          statistics: { min: -10, q1: 0, median: 10, q3: 20, max: 30 },
          meaning: 't',
          label: { en: 'T', ja: 'T' },
          description: { en: 'T', ja: 'T' },
        },
      ],
      understandingSample: undefined,
    }).columns;
    const [smoothness, temperature] = measured as [DatasetColumn, DatasetColumn];
    expect(formatValue(t, 'en', smoothness, 0.09401)).toBe('0.09401 mm');
    expect(formatValue(t, 'en', smoothness, 0.1)).toBe('0.10000 mm');
    expect(formatValue(tJa, 'ja', smoothness, 0.09401)).toBe('0.09401ミリ');
    // Without decimals: up to 3, as before; a unit given as one text is the codebook's only.
    expect(formatValue(t, 'en', { ...smoothness, decimals: undefined, unit: 'mm' } as DatasetColumn, 0.09401)).toBe('0.094');
    // A percentile of a quantity that is not money, negative values included.
    expect(formatValue(t, 'en', temperature, 20)).toBe('20.0 °C (top 25%)');
    expect(formatValue(tJa, 'ja', temperature, -5)).toBe('-5.0℃（上位87%）');
  });

  it('formats an amount in another currency with its own symbol', () => {
    const euros = { ...column('income'), currency: 'EUR' } as DatasetColumn;
    expect(formatValue(t, 'en', euros, 52000)).toBe('€52,000.00');
  });
});
