import { useState, type ReactNode } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { ScaleSegments } from '../../components/ui/scale-segments';
import type { SurveyResponse } from './case-flow-machine';
import type { RatingItem } from '../../../worker/schemas/condition-plan';

/**
 * The 1–5 questions after each case (part 2 §3 "Survey response per case"), all required: the
 * five about the explanation, or, where the condition shows the AI's prediction alone, trust.
 * `rated`: what the questions are about (the case's explanation or prediction), shown beside
 * them on a wide screen and above them on a phone, inside the form so its submit bar stays in view.
 */
export function SurveyStep({
  items,
  about,
  rated,
  onSubmit,
}: {
  items: readonly RatingItem[];
  about: 'explanation' | 'prediction';
  rated?: ReactNode;
  onSubmit: (survey: SurveyResponse) => void;
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Partial<Record<RatingItem, string>>>({});
  const [sent, setSent] = useState(false);
  const levels = t('main.survey.levels', { returnObjects: true }) as string[];
  const answered = items.filter((item) => values[item] !== undefined).length;
  const complete = answered === items.length;

  return (
    <form
      className="survey-step"
      data-rated={rated ? 'shown' : undefined}
      onSubmit={(e) => {
        e.preventDefault();
        if (!complete || sent) return;
        setSent(true);
        onSubmit(Object.fromEntries(items.map((item) => [item, Number(values[item])])) as SurveyResponse);
      }}
    >
      {rated ? (
        <section className="survey-rated" data-testid="survey-explanation" aria-label={t(about === 'prediction' ? 'main.survey.ratedPrediction' : 'main.survey.ratedExplanation')}>
          {rated}
        </section>
      ) : null}
      <div className="survey-questions">
        <p className="muted">{t(about === 'prediction' ? 'main.survey.leadPrediction' : 'main.survey.lead')}</p>
        {items.map((item, i) => (
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
      </div>
      <div className="button-row sticky-actions">
        <span className="muted survey-count">{t('main.survey.answered', { count: answered, total: items.length })}</span>
        <Button type="submit" className="button button-primary" isDisabled={!complete || sent}>
          {sent ? t('main.saving') : t('main.survey.submit')}
        </Button>
      </div>
    </form>
  );
}
