import { lazy, Suspense, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { enabledDatasets, isDatasetType, isLanguage, LANGUAGES, studyConfig, type DatasetType } from '../../../worker/schemas/study-config';
import { Card } from '../../components/ui/card';
import { StudyContacts } from '../../components/ui/study-contacts';
import { logger } from '../../lib/error-log';
import { drawnParticipantId, redrawParticipantId, rememberParticipant, storedParticipant } from '../../lib/participant';
import { captureProlificParams } from '../../lib/prolific';
import { recruitmentNow, SetupError, StudyUnavailableError, suggestedDataset, type ForcedDataset, type Unavailability } from './start-participation';
import { WithScreenTexts } from '../../i18n/screen-texts';

// The entry page is the whole first download: what only some visitors need comes when they need
// it, with the texts it speaks in (WithScreenTexts).
const ResumePanel = lazy(() => import('../../components/ui/resume-panel').then((m) => ({ default: m.ResumePanel })));
const SetupErrorScreen = lazy(() => import('./setup-error').then((m) => ({ default: m.SetupErrorScreen })));
const StudyUnavailable = lazy(() => import('./study-unavailable').then((m) => ({ default: m.StudyUnavailable })));
/**
 * Joining's code (start, continue): fetched at the first sign that the participant is about to
 * click (a touch, the pointer or the focus on the participation card), and awaited on the click.
 */
const joining = () => import('./joining');
const prefetchJoining = () => void joining().catch(() => undefined);
/**
 * A participation this browser holds: fetched at start-up for a returning visitor alone, beside
 * the first render's wait for the study's datasets, so it shows with the page.
 */
const ongoingPanel = () => import('./ongoing-participation');
if (storedParticipant()) void ongoingPanel().catch(() => undefined);
const OngoingParticipation = lazy(() => ongoingPanel().then((m) => ({ default: m.OngoingParticipation })));

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
  // The ID shown is the ID kept: the same after a reload or the dataset selection, until a participation starts with it.
  const [participantId, setParticipantId] = useState(drawnParticipantId);
  const [suggested, setSuggested] = useState<DatasetType | null>(null);
  const [starting, setStarting] = useState(false);
  const [setupError, setSetupError] = useState<SetupError | null>(null);
  // A participation in progress is continued unless the person deliberately draws a new ID.
  const [drawNew, setDrawNew] = useState(false);

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
      const { startParticipation } = await joining().catch((err: unknown) => Promise.reject(new SetupError('network', err)));
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

  if (setupError) {
    return (
      <Suspense fallback={<p>{t('common.loading')}</p>}>
        <WithScreenTexts>
          <SetupErrorScreen kind={setupError.kind} onRetry={start} participantId={participantId} onHome={() => setSetupError(null)} />
        </WithScreenTexts>
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
      <Card className="participation-card" onIntent={prefetchJoining}>
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
          <Suspense fallback={<p>{t('common.loading')}</p>}>
            <OngoingParticipation ongoing={ongoing} onStartOver={() => setDrawNew(true)} />
          </Suspense>
        ) : mode === 'new' && unavailable ? (
          <Suspense fallback={<p>{t('common.loading')}</p>}>
            <WithScreenTexts>
              <StudyUnavailable status={unavailable.status} prolificReturnUrl={unavailable.prolificReturnUrl} />
            </WithScreenTexts>
          </Suspense>
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
              <button type="button" className="button" onClick={() => setParticipantId(redrawParticipantId())} disabled={starting}>
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
              <WithScreenTexts>
                <ResumePanel initialId={ongoing?.sessionId ?? ''} />
              </WithScreenTexts>
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
