import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Button, Label, Radio, RadioGroup, TextArea, TextField } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { studyConfig, type DatasetType } from '../../../worker/schemas/study-config';
import { cleanText } from '../../../worker/schemas/text';
import { useSecondsLeft } from '../../lib/use-seconds-left';
import { ScaleSegments } from './scale-segments';

/** `timed_out`: the step's time limit ran out before the judgement was given (a condition's timeLimit). */
export type Judgement = { prediction: 0 | 1; confidence: number; reasoning?: string; timed_out?: boolean };
/** A judgement with the milliseconds it took to give. */
export type TimedJudgement = Judgement & { response_time_ms: number };

/**
 * A judgement step's time limit: when it runs out (`at`, a `performance.now()` reading; null while
 * not known) and what then happens (`submit`: the choice made so far is taken, once both parts
 * are chosen; `overrun`: the step stays open and asks for the judgement now).
 */
export type StepDeadline = { at: number | null; onTimeout: 'submit' | 'overrun' };

/** The countdown of a judgement step's time limit, at the top of the answer bar (in view on a phone). */
function StepCountdown({ seconds, deadline }: { seconds: number | null; deadline: StepDeadline }) {
  const { t } = useTranslation();
  const over = seconds === 0;
  return (
    <p className="step-countdown" role="timer" aria-label={t('main.timeLimit.label')} data-testid="step-countdown" data-state={over ? 'over' : 'running'}>
      {over ? t(deadline.onTimeout === 'submit' ? 'main.timeLimit.upSubmit' : 'main.timeLimit.upOverrun') : seconds === null ? '\u00a0' : t('main.timeLimit.left', { seconds })}
    </p>
  );
}

/**
 * Prediction plus confidence (1–5), and an optional reason. Both choices are required;
 * submitting shows "sending..." and delivers after the spec's 300 ms, with the `performance.now()`
 * of the click itself, so a decision time never includes that pause. Laid out as an answer bar
 * that stays in view at the bottom of a phone screen. Remount it (new `key`) to reset.
 */
export function JudgementInput({
  datasetType,
  onSubmit,
  disabled = false,
  labels = 'datasets',
  context,
  deadline,
}: {
  datasetType: DatasetType;
  /** `decidedAt`: the `performance.now()` reading of the click that submitted. */
  onSubmit: (judgement: Judgement, decidedAt: number) => void;
  disabled?: boolean;
  /** Where the prediction labels live: the datasets' own, or the main experiment's (part 2 §3). */
  labels?: 'datasets' | 'main.labels';
  /** Shown at the top of the answer bar, in view with the answer (the AI's prediction at the final judgement). */
  context?: ReactNode;
  /** The step's time limit, counted down at the top of the bar; the judgement says whether it ran out. */
  deadline?: StepDeadline;
}) {
  const { t } = useTranslation();
  const [prediction, setPrediction] = useState<string | null>(null);
  const [confidence, setConfidence] = useState<string | null>(null);
  const [reasoning, setReasoning] = useState('');
  const [reasonOpen, setReasonOpen] = useState(false);
  const [sending, setSending] = useState(false);
  const levels = t('judgement.confidenceLevels', { returnObjects: true }) as string[];
  const complete = prediction !== null && confidence !== null;
  const locked = sending || disabled;
  const chosenLevel = confidence === null ? null : levels[Number(confidence) - studyConfig.confidence.min];

  const secondsLeft = useSecondsLeft(deadline?.at ?? null);
  const timedOut = deadline !== undefined && secondsLeft === 0;
  const submit = () => {
    if (!complete || sending) return;
    const decidedAt = performance.now();
    setSending(true);
    const reason = cleanText(reasoning).trim();
    const judgement = { prediction: prediction === '1' ? 1 : 0, confidence: Number(confidence), ...(reason ? { reasoning: reason } : {}), ...(timedOut ? { timed_out: true } : {}) } as const;
    setTimeout(() => onSubmit(judgement, decidedAt), studyConfig.timingsMs.submitDelay);
  };
  // When the time runs out under `submit`, the choice made so far is the judgement (as soon as both parts are chosen).
  const submitNow = useRef(submit);
  submitNow.current = submit;
  const autoSubmits = timedOut && deadline.onTimeout === 'submit' && complete && !disabled;
  useEffect(() => {
    if (autoSubmits) submitNow.current();
  }, [autoSubmits]);

  return (
    <div className="judgement-input answer-bar">
      {deadline ? <StepCountdown seconds={secondsLeft} deadline={deadline} /> : null}
      {context}
      <RadioGroup value={prediction} onChange={setPrediction} isDisabled={locked} orientation="horizontal" className="radio-group judgement-prediction">
        {/* On a phone the question itself labels the choice (the case card leaves it out there). */}
        <Label className="answer-label">
          <span className="wide-only">{t('judgement.prediction')}</span>
          <span className="phone-only">{t(`datasets.${datasetType}.task`)}</span>
        </Label>
        <div className="segments segments-2">
          <Radio value="1" className="radio choice segment">
            {t(`${labels}.${datasetType}.positive`)}
          </Radio>
          <Radio value="0" className="radio choice segment">
            {t(`${labels}.${datasetType}.negative`)}
          </Radio>
        </div>
      </RadioGroup>
      <ScaleSegments
        className="judgement-confidence"
        label={
          <>
            {t('judgement.confidence')}
            {chosenLevel ? <span className="answer-chosen"> {t('judgement.chosenLevel', { label: chosenLevel })}</span> : null}
          </>
        }
        levels={levels}
        min={studyConfig.confidence.min}
        value={confidence}
        onChange={setConfidence}
        isDisabled={locked}
      />
      {reasonOpen ? (
        <TextField value={reasoning} onChange={setReasoning} maxLength={studyConfig.reasoningMaxLength} isDisabled={locked} className="text-field judgement-reasoning" autoFocus>
          <Label className="answer-label">{t('judgement.reasoning')}</Label>
          <TextArea rows={2} />
        </TextField>
      ) : null}
      <div className="answer-actions">
        {!reasonOpen ? (
          <Button className="button button-link" onPress={() => setReasonOpen(true)} isDisabled={locked}>
            {t('judgement.addReasoning')}
          </Button>
        ) : null}
        <Button className="button button-primary answer-submit" onPress={submit} isDisabled={locked || !complete}>
          {sending ? t('judgement.sending') : t('judgement.submit')}
        </Button>
      </div>
    </div>
  );
}
