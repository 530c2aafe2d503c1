import { useEffect, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearchParams } from 'react-router';
import { studyConfig } from '../../../worker/schemas/study-config';
import { paths } from '../../app/paths';
import { ProgressBar } from '../../components/ui/progress-bar';
import { api, ApiError, unwrap } from '../../lib/api';
import { logger } from '../../lib/error-log';
import { money } from '../../lib/incentive';
import { storedParticipant } from '../../lib/participant';
import { useDebugTools } from '../../lib/use-debug-tools';
import { ProlificButton } from '../prolific/prolific-button';
import { useProlificStatus } from '../prolific/use-prolific-status';

/** A value with a copy button whose "copied" state lasts the spec's 2 s. */
function CopyValue({ label, value, testId }: { label: string; value: string; testId: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      // Without clipboard access (plain HTTP, denied permission) the value stays selectable on screen.
      return;
    }
    setCopied(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), studyConfig.timingsMs.copyConfirmation);
  };
  return (
    <div className="copy-value">
      <span className="muted">{label}</span>
      <div className="participant-id-row">
        <code className="participant-id" data-testid={testId}>
          {value}
        </code>
        <Button className="button" onPress={() => void copy()}>
          {copied ? t('complete.copied') : t('complete.copy')}
        </Button>
      </div>
    </div>
  );
}

type Payment = { currency: string; base: number; bonus: number; total: number; correct_final: number; correct_pre: number; paid: boolean };

/** What the participant's condition pays them, as the Worker worked it out from their stored trials. */
function PaymentCard({ payment }: { payment: Payment }) {
  const { t, i18n } = useTranslation();
  const m = (x: number) => money(x, payment.currency, i18n.language);
  return (
    <section className="card payment" data-testid="completion-payment">
      <h2>{t('complete.payment.title')}</h2>
      <dl className="kv">
        <dt>{t('complete.payment.base')}</dt>
        <dd>{m(payment.base)}</dd>
        <dt>{payment.correct_pre > 0 ? t('complete.payment.bonusWithPre', { correct: payment.correct_final, correctPre: payment.correct_pre }) : t('complete.payment.bonus', { correct: payment.correct_final })}</dt>
        <dd data-testid="completion-bonus">{m(payment.bonus)}</dd>
        <dt>{t('complete.payment.total')}</dt>
        <dd>
          <strong>{m(payment.total)}</strong>
        </dd>
      </dl>
      <p className="muted">{t(payment.paid ? 'complete.payment.paid' : 'complete.payment.note')}</p>
    </section>
  );
}

type CompletionState =
  | { kind: 'loading' }
  | { kind: 'ready'; completionCode: string; verificationCode: string; debrief: { ja: string; en: string } | null; payment: Payment | null }
  | { kind: 'incomplete'; phase: string | null }
  | { kind: 'failed' };

/** Where a participant who has not completed the study goes on, by the phase their session is in. */
const PHASE_PAGES: Record<string, string> = {
  consent: paths.consent,
  pre_experiment: paths.pre,
  main_experiment: paths.mainIntro,
  post_survey: paths.postSurvey,
};

/** The session's phase, for the way back to it (null when it cannot be read). */
async function phaseOf(sessionId: string): Promise<string | null> {
  try {
    return (await unwrap(await api.api.experiments.sessions[':sessionId'].$get({ param: { sessionId } }))).current_phase;
  } catch {
    return null;
  }
}

/**
 * The codes come from the server and only for a session whose post-survey is stored: the
 * study-wide code is in no served file, so opening this page is not a way to get paid.
 */
function useCompletion(sessionId: string | null): { state: CompletionState; retry: () => void } {
  const [state, setState] = useState<CompletionState>({ kind: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (!sessionId) return;
    let live = true;
    setState({ kind: 'loading' });
    void (async () => {
      try {
        const body = await unwrap(await api.api['post-survey'].completion[':sessionId'].$get({ param: { sessionId } }));
        if (live) setState({ kind: 'ready', completionCode: body.completion_code, verificationCode: body.verification_code, debrief: body.debrief, payment: body.payment });
      } catch (err) {
        if (!live) return;
        const incomplete = err instanceof ApiError && (err.status === 409 || err.status === 404);
        if (!incomplete) {
          logger.error('completion', 'completion code could not be fetched', { sessionId, error: String(err) });
          setState({ kind: 'failed' });
          return;
        }
        const phase = await phaseOf(sessionId);
        if (live) setState({ kind: 'incomplete', phase });
      }
    })();
    return () => {
      live = false;
    };
  }, [sessionId, attempt]);
  return { state, retry: () => setAttempt((n) => n + 1) };
}

/**
 * `/experiment/complete` (part 2 §2.5): the study's confirmation code, the participant's own
 * verification code and the participant ID, each with a copy button, and what to do with them.
 * With `?debug=true` (development, or an administrator), the ID comes from the URL's `sessionId`
 * and the page says where it came from.
 */
export function CompletionPage() {
  const { t, i18n } = useTranslation();
  const [search] = useSearchParams();
  const routeState = useLocation().state as { sessionId?: string } | null;
  const debugTools = useDebugTools(search.get('debug') === 'true');
  const debug = debugTools === 'on';
  const fromUrl = debug ? search.get('sessionId') : null;
  const sessionId = fromUrl ?? routeState?.sessionId ?? storedParticipant()?.sessionId ?? null;
  const prolific = useProlificStatus(sessionId);
  const completion = useCompletion(debugTools === 'pending' ? null : sessionId);
  const { state } = completion;
  // Completion, its title and full progress bar, only for a participant whose study is complete.
  const done = state.kind === 'ready';
  const resumePage = state.kind === 'incomplete' && state.phase ? PHASE_PAGES[state.phase] : undefined;
  return (
    <div className="page completion">
      <h1>{t(done ? 'complete.title' : state.kind === 'incomplete' ? 'complete.notYetTitle' : 'complete.checkingTitle')}</h1>
      {done ? <ProgressBar phase="post_survey" value={1} max={1} /> : null}
      {state.kind === 'ready' ? <p className="lead">{t('complete.thanks')}</p> : null}
      {state.kind === 'ready' && state.debrief ? (
        <section className="card debrief" data-testid="completion-debrief">
          <h2>{t('complete.debriefTitle')}</h2>
          <p>{i18n.language === 'en' ? state.debrief.en : state.debrief.ja}</p>
        </section>
      ) : null}
      {state.kind === 'ready' && state.payment ? <PaymentCard payment={state.payment} /> : null}
      {state.kind === 'ready' && prolific?.completion_url ? (
        <section className="card">
          <ProlificButton href={prolific.completion_url} label={t('prolific.complete')} note={t('prolific.completeNote')} />
        </section>
      ) : null}
      <section className="card">
        {!sessionId ? (
          <>
            <p className="notice notice-warning">{t('complete.noId')}</p>
            <Link className="button button-primary" to={paths.resume}>
              {t('complete.resume')}
            </Link>
          </>
        ) : state.kind === 'loading' ? (
          <p className="spinner-line">
            <span className="spinner" aria-hidden="true" />
            {t('complete.loading')}
          </p>
        ) : state.kind === 'incomplete' ? (
          <>
            <p className="notice notice-info" data-testid="completion-incomplete" data-phase={state.phase ?? ''}>
              {state.phase && state.phase !== 'post_survey' && PHASE_PAGES[state.phase]
                ? t('complete.notYet', { phase: t(`complete.phases.${state.phase}`) })
                : t('complete.incomplete')}
            </p>
            {resumePage ? (
              <Link className="button button-primary" to={resumePage} state={{ sessionId, participantName: sessionId, datasetType: storedParticipant()?.datasetType }}>
                {state.phase === 'post_survey' ? t('complete.toPostSurvey') : t('complete.continue')}
              </Link>
            ) : (
              <Link className="button button-primary" to={`${paths.resume}?participant_id=${encodeURIComponent(sessionId)}`}>
                {t('complete.resume')}
              </Link>
            )}
          </>
        ) : state.kind === 'failed' ? (
          <>
            <p role="alert" className="notice notice-error">
              {t('complete.loadFailed')}
            </p>
            <Button className="button" onPress={completion.retry}>
              {t('complete.retry')}
            </Button>
          </>
        ) : (
          <>
            <CopyValue label={t('complete.code')} value={state.completionCode} testId="completion-code" />
            <CopyValue label={t('complete.verificationCode')} value={state.verificationCode} testId="completion-verification-code" />
            <CopyValue label={t('complete.participantId')} value={sessionId} testId="completion-participant-id" />
            <p>{t('complete.instructions')}</p>
            <p className="muted">{t('complete.verificationNote')}</p>
          </>
        )}
      </section>
      {sessionId ? (
        <p className="muted">
          <Link to={`/withdraw?participant_id=${encodeURIComponent(sessionId)}`}>{t('withdraw.link')}</Link>
        </p>
      ) : null}
      {debug ? (
        <p className="muted" data-testid="session-source">
          {t('complete.source', { source: fromUrl ? t('complete.sourceUrl') : t('complete.sourceStorage') })}
        </p>
      ) : null}
    </div>
  );
}
