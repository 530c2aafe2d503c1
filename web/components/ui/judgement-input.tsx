import { useState } from 'react';
import { Button, Label, Radio, RadioGroup } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { studyConfig, type DatasetType } from '../../../worker/schemas/study';

export type Judgement = { prediction: 0 | 1; confidence: number };

/**
 * Prediction plus confidence (1–5). Both are required; submitting shows "sending..." and
 * delivers after the spec's 300 ms. Remount it (new `key`) to reset for the next case.
 */
export function JudgementInput({
  datasetType,
  onSubmit,
  disabled = false,
}: {
  datasetType: DatasetType;
  onSubmit: (judgement: Judgement) => void;
  disabled?: boolean;
}) {
  const { t } = useTranslation();
  const [prediction, setPrediction] = useState<string | null>(null);
  const [confidence, setConfidence] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [missing, setMissing] = useState(false);
  const levels = t('judgement.confidenceLevels', { returnObjects: true }) as string[];
  const complete = prediction !== null && confidence !== null;

  const submit = () => {
    if (!complete) {
      setMissing(true);
      return;
    }
    setSending(true);
    setTimeout(() => onSubmit({ prediction: prediction === '1' ? 1 : 0, confidence: Number(confidence) }), studyConfig.timingsMs.submitDelay);
  };

  return (
    <div className="judgement-input">
      <RadioGroup value={prediction} onChange={(v) => { setPrediction(v); setMissing(false); }} isDisabled={sending || disabled} className="radio-group judgement-prediction">
        <Label>{t('judgement.prediction')}</Label>
        <Radio value="1" className="radio choice">{t(`datasets.${datasetType}.positive`)}</Radio>
        <Radio value="0" className="radio choice">{t(`datasets.${datasetType}.negative`)}</Radio>
      </RadioGroup>
      <RadioGroup value={confidence} onChange={(v) => { setConfidence(v); setMissing(false); }} isDisabled={sending || disabled} className="radio-group judgement-confidence">
        <Label>{t('judgement.confidence')}</Label>
        {levels.map((label, i) => (
          <Radio key={label} value={String(studyConfig.confidence.min + i)} className="radio choice">
            {studyConfig.confidence.min + i}. {label}
          </Radio>
        ))}
      </RadioGroup>
      {missing ? <p role="alert" className="notice notice-warning">{t('judgement.required')}</p> : null}
      <Button className="button button-primary" onPress={submit} isDisabled={sending || disabled || !complete}>
        {sending ? t('judgement.sending') : t('judgement.submit')}
      </Button>
    </div>
  );
}
