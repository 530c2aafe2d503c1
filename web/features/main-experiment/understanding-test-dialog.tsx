import { useEffect, useReducer, useRef } from 'react';
import { Button, Label, Radio, RadioGroup } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { FullScreenDialog } from '../../components/ui/full-screen-dialog';
import { studyConfig, type DatasetType } from '../../../worker/schemas/study-config';
import { drawUnderstandingQuestions, sampleCaptionShares, sampleRoleOf, sampleShares, SAMPLE_ROLES, understandingSampleOf } from '../../../worker/schemas/understanding-test';
import { ExplanationChart } from '../../components/ui/explanation-chart';
import { currentQuestion, isLastQuestion, newAttempt, testReducer, type TestAnswer } from './understanding-test-machine';

/** A random attempt ID; getRandomValues also works where randomUUID does not (plain-HTTP lab machines). */
const newAttemptId = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The understanding test (part 2 §2.1): five questions drawn from the pool about reading the
 * sample chart above them; an answer is required before check; the result passes only at 5 of 5
 * and a retry draws five new ones. Each finished attempt is handed to `onAttempt` to be stored;
 * `onPass` fires once.
 */
export function UnderstandingTestDialog({
  datasetType,
  isOpen,
  onClose,
  onAttempt,
  onPass,
}: {
  datasetType: DatasetType;
  isOpen: boolean;
  onClose: () => void;
  onAttempt: (attempt: { attempt_id: string; answers: TestAnswer[] }) => void;
  onPass: () => void;
}) {
  const { t } = useTranslation();
  const [state, dispatch] = useReducer(testReducer, undefined, () => newAttempt(newAttemptId(), drawUnderstandingQuestions()));
  const question = currentQuestion(state);
  const sample = understandingSampleOf(datasetType);
  const bars = sampleShares(sample);
  const featureName = (role: string) => {
    const bar = bars.find((b) => b.role === role);
    return bar ? t(`fields.${datasetType}.${bar.feature}.label`, { defaultValue: bar.feature }) : role;
  };
  const names = {
    ...Object.fromEntries(SAMPLE_ROLES.map((role) => [role, featureName(role)])),
    positive: t(`main.labels.${datasetType}.positive`),
    negative: t(`main.labels.${datasetType}.negative`),
  };
  const optionText = (option: string) => {
    const role = sampleRoleOf(option);
    if (role) return featureName(role);
    if (option === 'label_positive') return names.positive;
    if (option === 'label_negative') return names.negative;
    return t(`main.test.options.${option}`, names);
  };

  const reported = useRef<string | null>(null);
  const passed = useRef(false);
  useEffect(() => {
    if (!state.result || reported.current === state.attemptId) return;
    reported.current = state.attemptId;
    onAttempt({ attempt_id: state.attemptId, answers: state.answers });
    if (state.result.passed && !passed.current) {
      passed.current = true;
      onPass();
    }
  }, [state.result, state.attemptId, state.answers, onAttempt, onPass]);

  const answered = state.checked ? state.answers[state.answers.length - 1] : undefined;
  const correct = question && answered ? answered.answer === question.correct : false;
  const percent = state.result ? Math.round((state.result.correct / state.result.total) * 100) : 0;

  const caption = sampleCaptionShares(sample);
  return (
    <FullScreenDialog title={t('main.test.title')} isOpen={isOpen} onClose={onClose} className="understanding-test">
      {question ? (
        <>
          <p className="muted">{t('main.test.progress', { n: state.index + 1, total: state.questions.length })}</p>
          {question.type === 'chart' ? (
            <section className="test-sample">
              <h3>{t('main.test.sampleTitle', { label: sample.prediction === 1 ? names.positive : names.negative })}</h3>
              <ExplanationChart
                datasetType={datasetType}
                // The four bars carry part of the influence; the caption says how much, and that the rest is elsewhere.
                caption={t('main.test.sampleCaption', {
                  shown: Math.round(caption.shown * 100),
                  other: Math.round(caption.other * 100),
                })}
                shown={bars.map((b) => ({ feature: b.feature, importance: b.share, abs_importance: Math.abs(b.share), raw_shap: b.share }))}
                features={Object.fromEntries(bars.map((b) => [b.feature, b.value]))}
              />
            </section>
          ) : null}
          <RadioGroup
            className="radio-group test-question"
            data-question={question.id}
            value={state.selected}
            onChange={(option) => dispatch({ type: 'selected', option })}
            isDisabled={state.checked}
          >
            <Label className="answer-label">{t(`main.test.questions.${question.id}`, names)}</Label>
            {question.options.map((option) => (
              <Radio
                key={option}
                value={option}
                className="radio choice test-option"
                data-answer={state.checked ? (option === question.correct ? 'correct' : option === state.selected ? 'wrong' : undefined) : undefined}
              >
                {optionText(option)}
              </Radio>
            ))}
          </RadioGroup>
          {state.checked ? (
            <p className={correct ? 'notice notice-info' : 'notice notice-error'} role="status" data-testid="test-feedback">
              {correct ? t('main.test.correct') : t('main.test.incorrect', { answer: optionText(question.correct) })}
            </p>
          ) : null}
          <div className="button-row sticky-actions">
            {state.checked ? (
              <Button className="button button-primary" onPress={() => dispatch({ type: 'next' })}>
                {isLastQuestion(state) ? t('main.test.seeResults') : t('main.test.next')}
              </Button>
            ) : (
              <Button className="button button-primary" isDisabled={state.selected === null} onPress={() => dispatch({ type: 'checked' })}>
                {t('main.test.check')}
              </Button>
            )}
          </div>
        </>
      ) : state.result ? (
        <section className="test-result" data-testid="test-result" data-passed={state.result.passed}>
          <h3>{state.result.passed ? t('main.test.passed') : t('main.test.failed')}</h3>
          <p>{t('main.test.score', { correct: state.result.correct, total: state.result.total, percent })}</p>
          {state.result.passed ? null : <p className="muted">{t('main.test.retryHelp', { count: studyConfig.mainExperiment.understandingTestQuestions })}</p>}
          <div className="button-row sticky-actions">
            {state.result.passed ? (
              <Button className="button button-primary" onPress={onClose}>
                {t('main.test.finish')}
              </Button>
            ) : (
              <Button className="button button-primary" onPress={() => dispatch({ type: 'retried', attemptId: newAttemptId(), questions: drawUnderstandingQuestions() })}>
                {t('main.test.retry')}
              </Button>
            )}
          </div>
        </section>
      ) : null}
    </FullScreenDialog>
  );
}
