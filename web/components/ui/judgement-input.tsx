import { useState, type ReactNode } from 'react';
import { Button, Label, Radio, RadioGroup, TextArea, TextField } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { studyConfig, type DatasetType } from '../../../worker/schemas/study-config';
import { cleanText } from '../../../worker/schemas/text';
import { ScaleSegments } from './scale-segments';

export type Judgement = { prediction: 0 | 1; confidence: number; reasoning?: string };
/** A judgement with the milliseconds it took to give. */
export type TimedJudgement = Judgement & { response_time_ms: number };

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
}: {
  datasetType: DatasetType;
  /** `decidedAt`: the `performance.now()` reading of the click that submitted. */
  onSubmit: (judgement: Judgement, decidedAt: number) => void;
  disabled?: boolean;
  /** Where the prediction labels live: the datasets' own, or the main experiment's (part 2 §3). */
  labels?: 'datasets' | 'main.labels';
  /** Shown at the top of the answer bar, in view with the answer (the AI's prediction at the final judgement). */
  context?: ReactNode;
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

  const submit = () => {
    if (!complete) return;
    const decidedAt = performance.now();
    setSending(true);
    const reason = cleanText(reasoning).trim();
    setTimeout(
      () => onSubmit({ prediction: prediction === '1' ? 1 : 0, confidence: Number(confidence), ...(reason ? { reasoning: reason } : {}) }, decidedAt),
      studyConfig.timingsMs.submitDelay,
    );
  };

  return (
    <div className="judgement-input answer-bar">
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
