import { useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { ScaleSegments } from '../../components/ui/scale-segments';
import { SURVEY_ITEMS, type SurveyResponse } from './case-flow-machine';

/** The five 1–5 questions after each case (part 2 §3 "Survey response per case"); all required. */
export function SurveyStep({ onSubmit }: { onSubmit: (survey: SurveyResponse) => void }) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Partial<Record<(typeof SURVEY_ITEMS)[number], string>>>({});
  const [sent, setSent] = useState(false);
  const levels = t('main.survey.levels', { returnObjects: true }) as string[];
  const answered = SURVEY_ITEMS.filter((item) => values[item] !== undefined).length;
  const complete = answered === SURVEY_ITEMS.length;

  return (
    <form
      className="survey-step"
      onSubmit={(e) => {
        e.preventDefault();
        if (!complete || sent) return;
        setSent(true);
        onSubmit(Object.fromEntries(SURVEY_ITEMS.map((item) => [item, Number(values[item])])) as SurveyResponse);
      }}
    >
      <p className="muted">{t('main.survey.lead')}</p>
      {SURVEY_ITEMS.map((item, i) => (
        <ScaleSegments
          key={item}
          className="survey-item"
          label={`${i + 1}. ${t(`main.survey.items.${item}`)}`}
          levels={levels}
          value={values[item] ?? null}
          onChange={(v) => setValues((prev) => ({ ...prev, [item]: v }))}
          isDisabled={sent}
        />
      ))}
      <div className="button-row sticky-actions">
        <span className="muted survey-count">{t('main.survey.answered', { count: answered, total: SURVEY_ITEMS.length })}</span>
        <Button type="submit" className="button button-primary" isDisabled={!complete || sent}>
          {sent ? t('main.saving') : t('main.survey.submit')}
        </Button>
      </div>
    </form>
  );
}
