import { useEffect, useRef, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearchParams } from 'react-router';
import { studyConfig } from '../../../worker/schemas/study-config';
import { ProgressBar } from '../../components/ui/progress-bar';
import { storedParticipant } from '../../lib/participant';
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

/**
 * `/experiment/complete` (part 2 §2.5): the study's confirmation code and the participant ID,
 * each with a copy button, and what to do with them. With `?debug=true`, the ID comes from the
 * URL's `sessionId` and the page says where it came from.
 */
export function CompletionPage() {
  const { t } = useTranslation();
  const [search] = useSearchParams();
  const routeState = useLocation().state as { sessionId?: string } | null;
  const debug = search.get('debug') === 'true';
  const fromUrl = debug ? search.get('sessionId') : null;
  const sessionId = fromUrl ?? routeState?.sessionId ?? storedParticipant()?.sessionId ?? null;
  const prolific = useProlificStatus(sessionId);
  return (
    <div className="page completion">
      <h1>{t('complete.title')}</h1>
      <ProgressBar phase="post_survey" value={1} max={1} />
      <p className="lead">{t('complete.thanks')}</p>
      {prolific?.completion_url ? (
        <section className="card">
          <ProlificButton href={prolific.completion_url} label={t('prolific.complete')} note={t('prolific.completeNote')} />
        </section>
      ) : null}
      <section className="card">
        <CopyValue label={t('complete.code')} value={studyConfig.completionCode} testId="completion-code" />
        {sessionId ? <CopyValue label={t('complete.participantId')} value={sessionId} testId="completion-participant-id" /> : <p className="notice notice-warning">{t('complete.noId')}</p>}
        <p>{t('complete.instructions')}</p>
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
