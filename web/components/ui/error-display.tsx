import { useState, type FormEvent } from 'react';
import { Button, Input, Label, TextField } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { studyConfig } from '../../../worker/schemas/study-config';
import { normaliseParticipantId } from '../../lib/session-id';

export const ERROR_KINDS = [
  'dataset_type',
  'session',
  'network',
  'general',
  'dataset_error_main',
  'dataset_error_pre',
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** What the resume check found for the participant, when anything. */
export type ResumeSummary = { participantId: string; preCount: number; mainCount: number };

const tipsKind = (kind: ErrorKind) => (kind.startsWith('dataset_error') ? 'dataset_type' : kind);

/**
 * The shared error screen (part 2 §2.10): message, resume info, tips, resume by participant ID,
 * a link to /resume, and retry / back / home. Retry reads "resume from where you left off" when
 * the participant has something to resume.
 */
export function ErrorDisplay({
  kind,
  detail,
  resume,
  onRetry,
}: {
  kind: ErrorKind;
  detail?: string;
  resume?: ResumeSummary | null;
  onRetry?: () => void;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [participantId, setParticipantId] = useState('');
  const tips = t(`errors.display.tips.${tipsKind(kind)}`, { returnObjects: true }) as string[];
  const subtitle = t(`errors.display.kinds.${kind}.subtitle`, { defaultValue: '' });

  const resumeById = (event: FormEvent) => {
    event.preventDefault();
    if (!participantId) {
      window.alert(t('errors.display.enterParticipantId'));
      return;
    }
    void navigate(`/resume?participant_id=${encodeURIComponent(participantId)}`);
  };

  return (
    <div className="error-display" role="alert" data-kind={kind}>
      <h1 className="error-title">{t(`errors.display.kinds.${kind}.title`)}</h1>
      {subtitle ? <p className="error-subtitle">{subtitle}</p> : null}
      <p className="error-message">{t(`errors.display.kinds.${kind}.message`)}</p>
      {detail ? <p className="error-detail">{detail}</p> : null}

      {resume ? (
        <section className="notice notice-info resume-info">
          <h2>{t('errors.display.resumeInfo.title')}</h2>
          <p>{t('errors.display.resumeInfo.participant', { id: resume.participantId })}</p>
          <p>
            {t('errors.display.resumeInfo.progress', {
              pre: resume.preCount,
              preTotal: studyConfig.preExperiment.numCases,
              main: resume.mainCount,
              mainTotal: studyConfig.mainExperiment.numCases,
            })}
          </p>
        </section>
      ) : null}

      <section className="error-tips">
        <h2>{t('errors.display.tipsTitle')}</h2>
        <ul>
          {tips.map((tip) => (
            <li key={tip}>{tip}</li>
          ))}
        </ul>
      </section>

      <form className="resume-by-id" onSubmit={resumeById}>
        <TextField value={participantId} onChange={(v) => setParticipantId(normaliseParticipantId(v))}>
          <Label>{t('errors.display.resumeById')}</Label>
          <Input placeholder={t('errors.display.resumeIdPlaceholder')} autoComplete="off" spellCheck={false} />
        </TextField>
        <Button type="submit" className="button">
          {t('errors.display.resumeButton')}
        </Button>
        <Link to="/resume">{t('errors.display.resumePageLink')}</Link>
      </form>

      <div className="button-row">
        {onRetry ? (
          <Button className="button button-primary" onPress={onRetry}>
            {resume ? t('errors.display.retryResume') : t('errors.display.retry')}
          </Button>
        ) : null}
        <Button className="button" onPress={() => void navigate(-1)}>
          {t('common.back')}
        </Button>
        <Button className="button" onPress={() => void navigate('/')}>
          {t('common.home')}
        </Button>
      </div>
      <p className="muted">{t('errors.display.contactAdmin')}</p>
    </div>
  );
}
