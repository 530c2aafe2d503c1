import { useEffect, useRef, useState } from 'react';
import { Button, Input, Label, Tab, TabList, TabPanel, Tabs, TextField } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { issueMessage, questionLabels, sectionProgress, SECTION_IDS, type SectionId } from '../../../worker/schemas/post-survey';
import { NoParticipantHere } from '../../components/ui/no-participant';
import { ProgressBar } from '../../components/ui/progress-bar';
import { useDebugTools } from '../../lib/use-debug-tools';
import { currentSectionId, sectionIssues, sectionValid } from './post-survey-machine';
import { QuestionField } from './question-field';
import { usePostSurvey } from './use-post-survey';

/** The debug tools of part 2 §2.4: the session in use and an override. */
function DebugSession({ current }: { current: string | null }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [value, setValue] = useState(current ?? '');
  return (
    <section className="card debug-card">
      <p>
        {t('postSurvey.debug.current')} <code>{current ?? '—'}</code>
      </p>
      <form
        className="button-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) void navigate(`?debug=true&sessionId=${encodeURIComponent(value.trim().toUpperCase())}`, { replace: true });
        }}
      >
        <TextField className="text-field" value={value} onChange={setValue}>
          <Label>{t('postSurvey.debug.override')}</Label>
          <Input className="id-input" />
        </TextField>
        <Button type="submit" className="button">
          {t('postSurvey.debug.apply')}
        </Button>
      </form>
    </section>
  );
}

/**
 * `/experiment/post-survey` (and the admin's `/post-survey?debug=true&sessionId=` link): the
 * five sections as tabs, one open at a time, with progress, per-section counters, and the spec's
 * checks on next and submit; then the thank-you screen on the way to /experiment/complete.
 */
export function PostSurveyPage() {
  const { t } = useTranslation();
  const location = useLocation();
  const [search] = useSearchParams();
  const debugTools = useDebugTools(search.get('debug') === 'true');
  const routeState = location.state as { sessionId?: string } | null;
  if (debugTools === 'pending') return <p className="page">{t('common.loading')}</p>;
  return <PostSurveyScreens routeState={routeState} debug={debugTools === 'on'} />;
}

function PostSurveyScreens({ routeState, debug }: { routeState: { sessionId?: string } | null; debug: boolean }) {
  const { t, i18n } = useTranslation();
  const lang = i18n.language === 'en' ? 'en' : 'ja';
  const [search] = useSearchParams();
  const survey = usePostSurvey({ routeSessionId: routeState?.sessionId, debug, debugSessionId: search.get('sessionId') });
  const { state } = survey;
  const { screen } = state;

  // A press of next or submit with items missing takes the participant to the first of them.
  const latest = useRef(state);
  latest.current = state;
  useEffect(() => {
    if (state.missingShown === 0) return;
    const now = latest.current;
    const id = currentSectionId(now);
    const issues = sectionIssues(now, id);
    const first = now.definition.sections.find((s) => s.id === id)!.questions.find((q) => q.name in issues);
    const field = first ? document.querySelector<HTMLElement>(`.survey-section [data-question="${first.name}"]`) : null;
    if (!field) return;
    field.scrollIntoView({ block: 'center' });
    field.querySelector<HTMLElement>('input, textarea')?.focus({ preventScroll: true });
  }, [state.missingShown]);

  if (screen.kind === 'loading') {
    return (
      <p className="page spinner-line">
        <span className="spinner" aria-hidden="true" />
        {t('common.loading')}
      </p>
    );
  }

  // A browser holding no participant ID: one message, and resuming by ID (issue #59, point 5).
  if (screen.kind === 'no_session' && !survey.sessionId) {
    return (
      <>
        <NoParticipantHere className="post-survey-error" message={t(screen.messageKey)} />
        {debug ? <DebugSession current={survey.sessionId} /> : null}
      </>
    );
  }
  if (screen.kind === 'no_session') {
    return (
      <div className="page post-survey-error" role="alert">
        <h1 className="error-title">{t('postSurvey.errorTitle')}</h1>
        <p className="error-message">{t(screen.messageKey)}</p>
        <h2>{t('postSurvey.checklist.title')}</h2>
        <ul>
          <li>{t('postSurvey.checklist.completed')}</li>
          <li>{t('postSurvey.checklist.access')}</li>
          <li>{t('postSurvey.checklist.network')}</li>
        </ul>
        <div className="button-row">
          <Button className="button button-primary" onPress={survey.retry}>
            {t('postSurvey.retry')}
          </Button>
          <Link className="button" to="/experiment/main">
            {t('postSurvey.backToExperiment')}
          </Link>
        </div>
        {debug ? <DebugSession current={survey.sessionId} /> : null}
      </div>
    );
  }

  if (screen.kind === 'thanks') {
    return (
      <div className="page post-survey-thanks">
        <h1>{t('postSurvey.thanksTitle')}</h1>
        <p>{screen.alreadyAnswered ? t('postSurvey.alreadyAnswered') : t('postSurvey.thanksText')}</p>
        <Link className="button button-primary" to="/experiment/complete" state={{ sessionId: state.sessionId, completedSurvey: true }}>
          {t('postSurvey.toComplete')}
        </Link>
      </div>
    );
  }

  const sessionId = state.sessionId!;
  const sectionId = currentSectionId(state);
  const totals = state.definition.sections.map((s) => sectionProgress(s, state.answers[s.id]));
  const answered = totals.reduce((n, p) => n + p.answered, 0);
  const required = totals.reduce((n, p) => n + p.required, 0);
  const isLast = state.section === SECTION_IDS.length - 1;
  const submitting = screen.kind === 'submitting';
  const title = (id: SectionId) => state.definition.sections.find((s) => s.id === id)!.title[lang];
  // The list after a failed submit follows the answers: a section answered since leaves it.
  const stillIncomplete = state.incomplete.filter((id) => !sectionValid(state, id));
  const hereValid = sectionValid(state, sectionId);

  return (
    <div className="page post-survey">
      <h1>{t('postSurvey.title')}</h1>
      <ProgressBar phase="post_survey" value={answered} max={required} />
      <p className="muted" data-testid="survey-progress">
        {t('postSurvey.progress', { percent: required ? Math.round((answered / required) * 100) : 0, n: state.section + 1, total: SECTION_IDS.length })}
      </p>
      {debug ? <DebugSession current={sessionId} /> : null}
      {stillIncomplete.length > 0 ? (
        <p className="notice notice-error" role="alert" data-testid="incomplete-sections">
          {t('postSurvey.incompleteSections', { sections: stillIncomplete.map(title).join(lang === 'ja' ? '、' : ', ') })}
        </p>
      ) : null}
      {state.submitError ? (
        <div className="notice notice-error" role="alert" data-testid="submit-error">
          <p>{t(state.submitError.key, state.submitError.values ?? {})}</p>
          {state.submitError.items ? (
            <ul>
              {state.submitError.items.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <Tabs selectedKey={sectionId} onSelectionChange={(key) => survey.choose(SECTION_IDS.indexOf(key as SectionId))}>
        <TabList className="survey-tabs" aria-label={t('postSurvey.sections')}>
          {state.definition.sections.map((s, i) => {
            const valid = sectionValid(state, s.id);
            const flagged = state.revealed.has(s.id) && !valid;
            return (
              <Tab key={s.id} id={s.id} className="survey-tab" data-status={flagged ? 'error' : valid ? 'complete' : 'open'}>
                <span className="tab-dot" aria-hidden="true" />
                {i + 1}. {s.title[lang]}
                {flagged ? <span className="visually-hidden"> ({t('postSurvey.hasErrors')})</span> : valid ? <span className="visually-hidden"> ({t('postSurvey.complete')})</span> : null}
              </Tab>
            );
          })}
        </TabList>
        {state.definition.sections.map((s, i) => {
          // A wrong answer shows its message at once; a missing one once the section's errors are revealed.
          const all = sectionIssues(state, s.id);
          const issues = state.revealed.has(s.id) ? all : Object.fromEntries(Object.entries(all).filter(([, issue]) => issue.code !== 'required'));
          const labels = questionLabels(s, lang);
          const messages = Object.entries(issues).map(([name, issue]) => [name, issueMessage(issue, labels.get(name) ?? name, lang)] as const);
          return (
            <TabPanel key={s.id} id={s.id} className="survey-section">
              <p className="section-counter" data-testid="section-counter">
                {t('postSurvey.sectionCounter', { answered: totals[i]!.answered, required: totals[i]!.required })}
              </p>
              {s.intro ? <p>{s.intro[lang]}</p> : null}
              {messages.length > 0 ? (
                <div className="notice notice-error" data-testid="section-errors">
                  <p>{t('postSurvey.checkItems')}</p>
                  <ul>
                    {messages.map(([name, msg]) => (
                      <li key={name}>{msg}</li>
                    ))}
                  </ul>
                </div>
              ) : null}
              {s.questions.map((q) => (
                <QuestionField
                  key={q.name}
                  question={q}
                  value={state.answers[s.id][q.name]}
                  onChange={(v) => survey.answer(s.id, q.name, v)}
                  error={messages.find(([name]) => name === q.name)?.[1]}
                  sectionAnswers={state.answers[s.id]}
                  sessionId={sessionId}
                />
              ))}
            </TabPanel>
          );
        })}
      </Tabs>
      <div className="button-row sticky-actions survey-actions">
        <Button className="button" onPress={survey.previous} isDisabled={state.section === 0 || submitting}>
          {t('postSurvey.previous')}
        </Button>
        {/* Pressable while items are missing: a press then takes the participant to the first one. */}
        {isLast ? (
          <Button className="button button-primary" onPress={survey.submit} isDisabled={submitting} data-incomplete={hereValid ? undefined : ''}>
            {submitting ? t('postSurvey.submitting') : t('postSurvey.submit')}
          </Button>
        ) : (
          <Button className="button button-primary" onPress={survey.next} data-incomplete={hereValid ? undefined : ''}>
            {t('postSurvey.next')}
          </Button>
        )}
      </div>
    </div>
  );
}
