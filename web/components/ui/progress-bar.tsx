import { ProgressBar as AriaProgressBar } from 'react-aria-components';
import { useTranslation } from 'react-i18next';

export const PROGRESS_PHASES = ['preparation', 'pre_experiment', 'main_experiment', 'post_survey'] as const;
export type ProgressPhase = (typeof PROGRESS_PHASES)[number];

/** The study's phases with the current one marked, a percentage, and a badge when complete. */
export function ProgressBar({ phase, value, max, label }: { phase: ProgressPhase; value: number; max: number; label?: string }) {
  const { t } = useTranslation();
  // 100 % (and the badge) only when the phase is done: 199 of 200 reads 99 %, not a rounded 100 %.
  const percent = max > 0 ? (value >= max ? 100 : Math.min(99, Math.round((value / max) * 100))) : 0;
  const current = PROGRESS_PHASES.indexOf(phase);
  return (
    <div className="progress">
      <ol className="progress-phases">
        {PROGRESS_PHASES.map((p, i) => (
          <li key={p} data-state={i < current ? 'done' : i === current ? 'current' : 'todo'} aria-current={i === current ? 'step' : undefined}>
            {t(`progress.phases.${p}`)}
          </li>
        ))}
      </ol>
      <AriaProgressBar value={percent} aria-label={label ?? t('progress.label')} className="progress-bar">
        {({ percentage }) => (
          <>
            <div className="progress-track">
              <div className="progress-fill" style={{ width: `${percentage ?? 0}%` }} />
            </div>
            <span className="progress-text">
              {label ? `${label} · ` : ''}
              {t('common.percent', { value: percent })}
            </span>
          </>
        )}
      </AriaProgressBar>
      {percent >= 100 ? <span className="badge badge-green">{t('progress.complete')}</span> : null}
    </div>
  );
}
