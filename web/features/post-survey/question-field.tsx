import { lazy, Suspense } from 'react';
import { Checkbox, CheckboxGroup, Input, Label, Radio, RadioGroup, TextArea, TextField } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { OTHER_OPTION, parseMultiselect, type AnsweredQuestion, type AnswerValue, type Question } from '../../../worker/schemas/post-survey';
import { cleanText } from '../../../worker/schemas/text';
import { ScaleSegments } from '../../components/ui/scale-segments';

// The chart library comes only with the section that shows the example.
const AdjustmentExample = lazy(() => import('./adjustment-example').then((m) => ({ default: m.AdjustmentExample })));

type Lang = 'ja' | 'en';

/** The earlier ratings a question points back to, as chips, when all of them are 1–5 (part 2 §2.4). */
function PreviousAnswers({ names, answers }: { names: readonly string[]; answers: Record<string, AnswerValue> }) {
  const { t } = useTranslation();
  const values = names.map((n) => answers[n]);
  if (!values.every((v) => typeof v === 'number' && v >= 1 && v <= 5)) return null;
  return (
    <p className="previous-answers" data-testid="previous-answers">
      <span className="muted">{t('postSurvey.previousAnswers')}</span>
      {names.map((n, i) => (
        <span key={n} className="chip">
          {t(`postSurvey.contexts.${n.replace(/^.*_(high_stakes|low_stakes|subjective|objective)$/, '$1')}`)}: {values[i]}
        </span>
      ))}
    </p>
  );
}

/**
 * One post-survey question, drawn by its kind in the definition: number, radio, 1–5 or 1–7
 * scale, text with a length counter, multiselect with an "other" text, or an information block.
 * `error` is shown under it once its section's errors are revealed.
 */
export function QuestionField({
  question,
  value,
  onChange,
  error,
  sectionAnswers,
  sessionId,
}: {
  question: Question;
  value: AnswerValue;
  onChange: (value: AnswerValue) => void;
  error?: string;
  sectionAnswers: Record<string, AnswerValue>;
  sessionId: string;
}) {
  const { t, i18n } = useTranslation();
  const lang: Lang = i18n.language === 'en' ? 'en' : 'ja';
  if (question.kind === 'info') {
    return (
      <section className="survey-info">
        <h3>{question.label[lang]}</h3>
        <p>{question.body[lang]}</p>
        {question.figure === 'benevolent_example' ? (
          <Suspense fallback={<p className="muted">{t('common.loading')}</p>}>
            <AdjustmentExample sessionId={sessionId} />
          </Suspense>
        ) : null}
      </section>
    );
  }
  const q: AnsweredQuestion = question;
  const label = (
    <>
      {q.label[lang]}
      {q.optional ? <span className="muted"> {t('postSurvey.optional')}</span> : null}
    </>
  );
  const errorId = `${q.name}-error`;
  const errorLine = error ? (
    <p id={errorId} className="field-error" role="alert">
      {error}
    </p>
  ) : null;

  let field;
  switch (q.kind) {
    case 'number':
      field = (
        <TextField
          className="text-field survey-number"
          value={value === null || value === undefined ? '' : String(value)}
          onChange={(v) => onChange(/^\d{1,3}$/.test(v.trim()) ? Number(v.trim()) : v)}
          isInvalid={!!error}
          aria-describedby={error ? errorId : undefined}
        >
          <Label className="answer-label">{label}</Label>
          <span className="number-row">
            <Input inputMode="numeric" />
            {q.unit ? <span>{q.unit[lang]}</span> : null}
          </span>
        </TextField>
      );
      break;
    case 'radio':
      field = (
        <RadioGroup className="radio-group" value={typeof value === 'string' ? value : null} onChange={onChange} isInvalid={!!error} aria-describedby={error ? errorId : undefined}>
          <Label className="answer-label">{label}</Label>
          {q.options.map((o) => (
            <Radio key={o.value} value={o.value} className="radio choice">
              {o.label[lang]}
            </Radio>
          ))}
        </RadioGroup>
      );
      break;
    case 'scale':
      field = (
        <>
          {q.previousAnswers ? <PreviousAnswers names={q.previousAnswers} answers={sectionAnswers} /> : null}
          <ScaleSegments
            className="survey-scale"
            label={label}
            levels={t(`postSurvey.anchors.${q.anchors}`, { returnObjects: true }) as string[]}
            value={typeof value === 'number' ? String(value) : null}
            onChange={(v) => onChange(Number(v))}
          />
        </>
      );
      break;
    case 'text': {
      const text = typeof value === 'string' ? value : '';
      field = (
        <TextField className="text-field survey-text" value={text} onChange={(v) => onChange(cleanText(v))} isInvalid={!!error} aria-describedby={error ? errorId : undefined}>
          <Label className="answer-label">{label}</Label>
          <TextArea rows={3} />
          <span className={[...text].length > q.maxLength ? 'counter counter-over' : 'counter'} aria-live="polite">
            {[...text].length}/{q.maxLength}
          </span>
        </TextField>
      );
      break;
    }
    case 'multiselect': {
      const current = parseMultiselect(value) ?? { selections: [], other_text: '' };
      const set = (next: Partial<typeof current>) => onChange(JSON.stringify({ ...current, ...next }));
      field = (
        <>
          <CheckboxGroup className="checkbox-group" value={current.selections} onChange={(selections) => set({ selections })} isInvalid={!!error} aria-describedby={error ? errorId : undefined}>
            <Label className="answer-label">{label}</Label>
            {[...q.options, { value: OTHER_OPTION, label: { ja: 'その他', en: 'Other' } }].map((o) => (
              <Checkbox key={o.value} value={o.value} className="checkbox choice">
                {o.label[lang]}
              </Checkbox>
            ))}
          </CheckboxGroup>
          {current.selections.includes(OTHER_OPTION) ? (
            <TextField className="text-field survey-text" value={current.other_text} onChange={(other_text) => set({ other_text: cleanText(other_text) })}>
              <Label className="answer-label">{t('postSurvey.otherText')}</Label>
              <Input />
              <span className="counter">
                {[...current.other_text].length}/{q.otherMaxLength}
              </span>
            </TextField>
          ) : null}
        </>
      );
      break;
    }
  }
  return (
    <div className={error ? 'survey-question has-error' : 'survey-question'} data-question={q.name}>
      {field}
      {errorLine}
    </div>
  );
}
