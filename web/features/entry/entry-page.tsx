import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { enabledDatasets, isDatasetType, isLanguage, LANGUAGES, studyConfig, type DatasetType } from '../../../worker/schemas/study-config';
import { Card } from '../../components/ui/card';
import { StudyContacts } from '../../components/ui/study-contacts';
import { logger } from '../../lib/error-log';
import { userErrorMessage } from '../../lib/http-errors';
import { rememberParticipant, storedParticipant } from '../../lib/participant';
import { checkExisting } from '../../lib/resume';
import { captureProlificParams } from '../../lib/prolific';
import { generateParticipantId } from '../../lib/session-id';
import { continueParticipation, recruitmentNow, SetupError, startParticipation, StudyUnavailableError, suggestedDataset, type ForcedDataset, type Unavailability } from './start-participation';
import { StudyUnavailable } from './study-unavailable';

// The entry page is the whole first download: what only some visitors need comes when they need it.
const ResumePanel = lazy(() => import('../../components/ui/resume-panel').then((m) => ({ default: m.ResumePanel })));
const SetupErrorScreen = lazy(() => import('./setup-error').then((m) => ({ default: m.SetupErrorScreen })));

/** The dataset forced by `?dataset=` (else by the selection page's state); an invalid value is ignored with a warning. */
function useForcedDataset(): ForcedDataset | null {
  const [params] = useSearchParams();
  const location = useLocation();
  const query = params.get('dataset');
  if (query) {
    if (isDatasetType(query) && enabledDatasets().includes(query)) return { datasetType: query, source: 'url' };
    logger.warn(`ignoring unknown dataset query parameter ${JSON.stringify(query)}`);
  }
  const state = location.state as { datasetType?: unknown } | null;
  return isDatasetType(state?.datasetType) ? { datasetType: state.datasetType, source: 'selection' } : null;
}

function CopyButton({ text }: { text: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), studyConfig.timingsMs.copyConfirmation);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      className="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text).catch(() => undefined);
        setCopied(true);
      }}
    >
      {copied ? t('common.copied') : t('common.copy')}
    </button>
  );
}

/** `/` and `/introduction`: the study, the flow, and joining as new or resuming by ID. */
export function EntryPage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const forced = useForcedDataset();
  const ongoing = storedParticipant();
  const [mode, setMode] = useState<'new' | 'resume'>(params.get('resume') === 'true' ? 'resume' : 'new');
  const [participantId, setParticipantId] = useState(() => generateParticipantId());
  const [suggested, setSuggested] = useState<DatasetType | null>(null);
  const [starting, setStarting] = useState(false);
  const [setupError, setSetupError] = useState<SetupError | null>(null);
  // A participation in progress is continued unless the person deliberately draws a new ID.
  const [drawNew, setDrawNew] = useState(false);
  const [continueError, setContinueError] = useState<string | null>(null);
  // Whether the stored participation is over (completed, or screened out): then it is not "in progress".
  const [ongoingEnded, setOngoingEnded] = useState<'completed' | 'screened_out' | null>(null);
  const ongoingId = ongoing?.sessionId ?? null;
  useEffect(() => {
    if (!ongoingId) return;
    const controller = new AbortController();
    checkExisting(ongoingId, controller.signal)
      .then((check) => setOngoingEnded(check.isCompleted ? 'completed' : check.isScreenedOut ? 'screened_out' : null))
      .catch(() => undefined);
    return () => controller.abort();
  }, [ongoingId]);

  // A paused or closed study admits nobody new: the page says so instead of offering a start.
  const [unavailable, setUnavailable] = useState<{ status: Unavailability; prolificReturnUrl: string | null } | null>(null);
  useEffect(() => {
    recruitmentNow()
      .then((r) =>
        setUnavailable(r.status !== 'open' ? { status: r.status, prolificReturnUrl: r.prolific_return_url } : r.full ? { status: 'full', prolificReturnUrl: r.prolific_return_url } : null),
      )
      .catch((err: unknown) => logger.warn(`recruitment state unavailable: ${String(err)}`));
  }, []);

  // Arriving from Prolific: its IDs go with the participant this browser creates.
  useEffect(() => captureProlificParams(params), [params]);

  useEffect(() => {
    if (forced) return;
    suggestedDataset()
      .then(setSuggested)
      .catch((err: unknown) => logger.fallback('dataset_type', 'balanced suggestion unavailable', { error: String(err) }));
  }, [forced]);

  const marker = forced ? `${forced.datasetType}_url` : `${suggested ?? studyConfig.defaultDatasetType}_def`;

  const start = async () => {
    if (!participantId) {
      window.alert(t('entry.noId'));
      return;
    }
    setStarting(true);
    setSetupError(null);
    try {
      const language = isLanguage(i18n.language) ? i18n.language : LANGUAGES[0];
      const session = await startParticipation({ participantId, forced, language });
      rememberParticipant(session);
      void navigate('/experiment/consent', {
        state: { datasetType: session.datasetType, participantName: session.sessionId, sessionId: session.sessionId },
      });
    } catch (err) {
      if (err instanceof StudyUnavailableError) {
        // Paused or closed since the page loaded: nothing was stored.
        setUnavailable({ status: err.status, prolificReturnUrl: (await recruitmentNow().catch(() => null))?.prolific_return_url ?? null });
        setStarting(false);
        return;
      }
      const error = err instanceof SetupError ? err : new SetupError('session', err);
      logger.error(`setup_${error.kind}`, error.message, {});
      setSetupError(error);
      setStarting(false);
    }
  };

  const continueOngoing = async () => {
    if (!ongoing) return;
    setStarting(true);
    setContinueError(null);
    try {
      const destination = await continueParticipation(ongoing.sessionId);
      void navigate(destination.path, { state: destination.state });
    } catch (err) {
      logger.error('continue_participation', 'participation in progress could not be continued', { error: String(err) });
      setContinueError(userErrorMessage(t, err));
      setStarting(false);
    }
  };

  if (setupError) {
    return (
      <Suspense fallback={<p>{t('common.loading')}</p>}>
        <SetupErrorScreen kind={setupError.kind} onRetry={start} participantId={participantId} onHome={() => setSetupError(null)} />
      </Suspense>
    );
  }

  return (
    <div className="page entry-page">
      <h1>{t('entry.title')}</h1>
      {/* The tasks as their definitions name them: the study is not always about people. */}
      <p className="lead" data-testid="entry-lead">
        {t('entry.lead', { tasks: enabledDatasets().map((id) => t(`datasets.${id}.name`)).join(t('entry.taskSeparator')) })}
      </p>

      {/* The way in comes first: a phone shows it without scrolling; the details follow. */}
      <Card className="participation-card">
        <fieldset className="mode-toggle">
          <legend>{t('entry.modeLabel')}</legend>
          {(['new', 'resume'] as const).map((value) => (
            <label key={value} className="native-choice">
              <input type="radio" name="participation-mode" value={value} checked={mode === value} onChange={() => setMode(value)} />
              {t(value === 'new' ? 'entry.modeNew' : 'entry.modeResume')}
            </label>
          ))}
        </fieldset>

        {mode === 'new' && ongoing && !drawNew ? (
          <div className="ongoing-participation" data-testid="ongoing-participation">
            <h2>{t(ongoingEnded === 'completed' ? 'entry.completedTitle' : ongoingEnded === 'screened_out' ? 'entry.endedTitle' : 'entry.ongoingTitle')}</h2>
            <p>{t(ongoingEnded === 'completed' ? 'entry.completedText' : ongoingEnded === 'screened_out' ? 'resume.screenedOut' : 'entry.ongoingText')}</p>
            <dl className="kv">
              <dt>{t('entry.yourId')}</dt>
              <dd>
                <output className="participant-id participant-id-small">{ongoing.sessionId}</output>
              </dd>
              {ongoing.datasetType ? (
                <>
                  <dt>{t('entry.datasetLabel')}</dt>
                  <dd>{t(`datasets.${ongoing.datasetType}.name`)}</dd>
                </>
              ) : null}
            </dl>
            {continueError ? (
              <p role="alert" className="notice notice-error">
                {continueError}
              </p>
            ) : null}
            <div className="button-row">
              <button type="button" className="button button-primary" onClick={() => void continueOngoing()} disabled={starting}>
                {starting
                  ? t('entry.starting')
                  : t(ongoingEnded === 'completed' ? 'resume.toCompletion' : ongoingEnded === 'screened_out' ? 'resume.toScreenedOut' : 'entry.continueOngoing')}
              </button>
              <button type="button" className="button" onClick={() => setDrawNew(true)} disabled={starting}>
                {t('entry.startOver')}
              </button>
            </div>
          </div>
        ) : mode === 'new' && unavailable ? (
          <StudyUnavailable status={unavailable.status} prolificReturnUrl={unavailable.prolificReturnUrl} />
        ) : mode === 'new' ? (
          <div className="new-participation">
            {ongoing ? <p className="notice notice-warning">{t('entry.startOverNote', { id: ongoing.sessionId })}</p> : null}
            <input type="hidden" name="dataset_marker" value={marker} data-testid="dataset-marker" />
            {forced ? <p className="muted">{t('entry.forcedDataset', { name: t(`datasets.${forced.datasetType}.name`) })}</p> : null}
            <p>{t('entry.yourId')}</p>
            <div className="participant-id-row">
              <output className="participant-id" data-testid="participant-id">
                {participantId}
              </output>
              <CopyButton text={participantId} />
              <button type="button" className="button" onClick={() => setParticipantId(generateParticipantId())} disabled={starting}>
                {t('entry.regenerate')}
              </button>
            </div>
            <p className="notice notice-warning">{t('entry.idNote')}</p>
            <button type="button" className="button button-primary" onClick={() => void start()} disabled={starting}>
              {starting ? t('entry.starting') : t('entry.start')}
            </button>
            <p>
              <Link to="/experiment/selection">{t('entry.selectionLink')}</Link>
            </p>
          </div>
        ) : (
          <div className="resume-participation">
            <h2>{t('resume.title')}</h2>
            <Suspense fallback={<p>{t('common.loading')}</p>}>
              <ResumePanel initialId={ongoing?.sessionId ?? ''} />
            </Suspense>
          </div>
        )}
      </Card>


      <Card title={t('entry.flowTitle')}>
        <div className="flow-cards">
          {(['pre', 'main', 'post'] as const).map((step) => (
            <div key={step} className="flow-card">
              <h3>{t(`entry.flow.${step}.title`)}</h3>
              <p>{t(`entry.flow.${step}.text`)}</p>
            </div>
          ))}
        </div>
        <p className="muted">{t('entry.totals', { minutes: studyConfig.totalMinutes, amount: studyConfig.compensation.amount.toLocaleString() })}</p>
      </Card>

      <Card title={t('entry.prepTitle')}>
        <ul>
          {(t('entry.prep', { returnObjects: true }) as string[]).map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
        <h3>{t('entry.supportTitle')}</h3>
        <p>{t('entry.support')}</p>
        <StudyContacts />
        <p className="muted">
          <Link to={ongoing ? `/withdraw?participant_id=${encodeURIComponent(ongoing.sessionId)}` : '/withdraw'}>{t('withdraw.link')}</Link>
        </p>
      </Card>

    </div>
  );
}
