import { useEffect, useState, type FormEvent } from 'react';
import { Button, Input, Label, Text, TextField } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { studyConfig } from '../../../worker/schemas/study-config';
import { logger } from '../../lib/error-log';
import { rememberParticipant } from '../../lib/participant';
import { checkExisting, type ExistingCheck } from '../../lib/check-existing';
import { fetchResume, resumeDestination, resumeErrorKey } from '../../lib/resume';
import { normaliseParticipantId, participantIdCandidates } from '../../lib/session-id';

type PanelState =
  | { kind: 'idle' }
  | { kind: 'checking' }
  | { kind: 'found'; id: string; check: ExistingCheck }
  | { kind: 'not_found' };

/** The first of the typed ID's readings (look-alike letters as digits, then as typed) that exists. */
async function findParticipant(typed: string, signal: AbortSignal): Promise<{ id: string; check: ExistingCheck } | null> {
  for (const id of participantIdCandidates(typed)) {
    const check = await checkExisting(id, signal);
    if (check.exists) return { id, check };
  }
  return null;
}

/**
 * Resume by participant ID: checks 500 ms after typing stops, from 2 characters, shows whether
 * the ID can be resumed, and takes the participant to where they stopped.
 */
export function ResumePanel({ initialId = '' }: { initialId?: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [participantId, setParticipantId] = useState(normaliseParticipantId(initialId));
  const [state, setState] = useState<PanelState>({ kind: 'idle' });
  const [error, setError] = useState<string | null>(null);
  const [resuming, setResuming] = useState(false);
  const [nonce, setNonce] = useState(0);

  useEffect(() => {
    if (participantId.length < 2) {
      setState({ kind: 'idle' });
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      setState({ kind: 'checking' });
      findParticipant(participantId, controller.signal)
        .then((found) => setState(found ? { kind: 'found', ...found } : { kind: 'not_found' }))
        .catch(() => undefined);
    }, studyConfig.timingsMs.resumeDebounce);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [participantId, nonce]);

  // A completed participant resumes too: to the completion page, which asks the server for their codes;
  // a screened-out one to the screen-out page: neither can continue answering.
  const resumable = state.kind === 'found' && !state.check.integrityError;
  const screenedOut = resumable && state.check.isScreenedOut;
  const completed = resumable && !state.check.canResume && !screenedOut;

  const resume = async (event?: FormEvent) => {
    event?.preventDefault();
    if (!participantId) {
      window.alert(t('resume.enterId'));
      return;
    }
    if (!resumable) {
      setNonce((n) => n + 1);
      return;
    }
    setResuming(true);
    setError(null);
    try {
      const data = await fetchResume(state.id);
      const destination = resumeDestination(data);
      rememberParticipant({ sessionId: data.sessionId, userId: data.userId, datasetType: data.confirmedDatasetType });
      void navigate(destination.path, { state: destination.state });
    } catch (err) {
      logger.error('resume', 'resume failed', { participantId, error: String(err) });
      setError(t(resumeErrorKey(err)));
      setResuming(false);
      window.alert(t('resume.contactAdmin'));
    }
  };

  return (
    <form className="resume-panel" onSubmit={(e) => void resume(e)}>
      <TextField value={participantId} onChange={(v) => setParticipantId(normaliseParticipantId(v))} className="text-field">
        <Label>{t('resume.idLabel')}</Label>
        <Input placeholder={t('resume.idPlaceholder')} autoComplete="off" autoCapitalize="characters" spellCheck={false} className="id-input" />
        <Text slot="description" className="muted">
          {t('resume.idHint')}
        </Text>
      </TextField>
      <div
        className="resume-result"
        aria-live="polite"
        data-state={state.kind === 'found' ? (state.check.integrityError ? 'integrity' : screenedOut ? 'screened_out' : state.check.canResume ? 'resumable' : 'completed') : state.kind}
      >
        {state.kind === 'checking' ? t('resume.checking') : null}
        {state.kind === 'not_found' ? <span className="notice notice-warning">{t('resume.notFound')}</span> : null}
        {state.kind === 'found' && state.id !== participantId ? <span className="muted">{t('resume.readAs', { id: state.id })} </span> : null}
        {state.kind === 'found' && state.check.integrityError ? <span className="notice notice-error">{t('resume.integrity')}</span> : null}
        {state.kind === 'found' && !state.check.integrityError && state.check.canResume
          ? t('resume.resumable', {
              pre: state.check.preExperimentCount,
              preTotal: studyConfig.preExperiment.numCases,
              main: state.check.mainExperimentCount,
              mainTotal: studyConfig.mainExperiment.numCases,
            })
          : null}
        {completed ? t('resume.completed') : null}
        {screenedOut ? t('resume.screenedOut') : null}
      </div>
      {error ? (
        <p role="alert" className="notice notice-error">
          {error}
        </p>
      ) : null}
      <div className="button-row">
        <Button type="submit" className="button button-primary" isDisabled={resuming || (participantId !== '' && !resumable)}>
          {completed ? t('resume.toCompletion') : screenedOut ? t('resume.toScreenedOut') : t('resume.button')}
        </Button>
      </div>
    </form>
  );
}
