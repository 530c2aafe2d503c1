import { useEffect, useState, type ReactNode } from 'react';
import { readStorage, storageKeys, writeStorage } from '../../lib/storage-keys';
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
 * `draft`: a case of the participant's main set, whose picked answers are kept in the browser until
 * it is sent, so a reload of the step brings them back (issue #59, point 3).
 */
export function SurveyStep({
  items,
  about,
  rated,
  onSubmit,
  draft,
}: {
  items: readonly RatingItem[];
  about: 'explanation' | 'prediction';
  rated?: ReactNode;
  onSubmit: (survey: SurveyResponse) => void;
  draft?: { sessionId: string; caseId: string };
}) {
  const { t } = useTranslation();
  const [values, setValues] = useState<Partial<Record<RatingItem, string>>>(() => (draft ? readDraft(draft) : {}));
  const [sent, setSent] = useState(false);
  // The answers picked, kept for a reload until the case is sent (then let go).
  const draftKey = draft ? `${storageKeys.mainSurveyDraftPrefix}${draft.sessionId}` : null;
  const draftCase = draft?.caseId;
  useEffect(() => {
    if (draftKey) writeStorage(draftKey, sent ? null : JSON.stringify({ case_id: draftCase, values }));
  }, [draftKey, draftCase, values, sent]);
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

/** The answers kept for this case (a draft of another case, or a damaged one, is none). */
function readDraft(draft: { sessionId: string; caseId: string }): Partial<Record<RatingItem, string>> {
  try {
    const kept = JSON.parse(readStorage(`${storageKeys.mainSurveyDraftPrefix}${draft.sessionId}`) ?? 'null') as { case_id?: unknown; values?: unknown } | null;
    if (kept?.case_id !== draft.caseId || typeof kept.values !== 'object' || kept.values === null) return {};
    return Object.fromEntries(Object.entries(kept.values).filter(([, v]) => typeof v === 'string')) as Partial<Record<RatingItem, string>>;
  } catch {
    return {};
  }
}
