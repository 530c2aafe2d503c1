/**
 * The outcome of a case just stored, for a condition that gives outcome feedback (issue #58,
 * element 4): the true outcome, and whether the participant's final judgement and the AI were
 * right, all as the server has them (its case table and the stored trial; nothing from this page).
 * It opens once the case has reached the server; how long it was on screen, from its first frame
 * to the click that moves on, is reported for the record.
 */
import { useEffect, useState } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { InferResponseType } from 'hono/client';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { api, unwrap } from '../../lib/api';
import { logger } from '../../lib/error-log';
import { useShownAt } from '../../lib/use-shown-at';

type Feedback = InferResponseType<(typeof api.api.experiments.main)['feedback']['$get'], 200>;

function Verdict({ label, answer, correct, testId }: { label: string; answer: string; correct: boolean; testId: string }) {
  const { t } = useTranslation();
  return (
    <p className="feedback-line" data-testid={testId} data-correct={correct}>
      <span>{label}</span> <strong>{answer}</strong>{' '}
      <span className={correct ? 'badge badge-green' : 'badge badge-red'}>{t(correct ? 'main.feedback.right' : 'main.feedback.wrong')}</span>
    </p>
  );
}

export function OutcomeFeedback({
  sessionId,
  caseId,
  datasetType,
  stored,
  onNext,
}: {
  sessionId: string;
  caseId: string;
  datasetType: DatasetType;
  /** Resolves once the case is on the server (the page's outbox has sent it). */
  stored: () => Promise<void>;
  onNext: () => void;
}) {
  const { t } = useTranslation();
  const [feedback, setFeedback] = useState<Feedback | null>(null);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    setFailed(false);
    void (async () => {
      try {
        await stored();
        const body = await unwrap(await api.api.experiments.main.feedback.$get({ query: { session_id: sessionId, case_id: caseId } }));
        if (live) setFeedback(body);
      } catch (err) {
        logger.error('outcome_feedback', `no feedback for ${caseId}`, { error: String(err) });
        if (live) setFailed(true);
      }
    })();
    return () => {
      live = false;
    };
  }, [sessionId, caseId, attempt]);
  const shownAt = useShownAt(feedback !== null);

  const label = (outcome: 0 | 1) => t(`main.labels.${datasetType}.${outcome === 1 ? 'positive' : 'negative'}`);
  const next = () => {
    if (feedback) {
      const viewed = Math.max(0, Math.round(performance.now() - shownAt.current));
      // The record's viewing time; the next case does not wait for it.
      void api.api.experiments.main['feedback-viewed']
        .$post({ json: { session_id: sessionId, case_id: caseId, feedback_viewing_time_ms: viewed } })
        .then(unwrap)
        .catch((err: unknown) => logger.error('outcome_feedback', `viewing time of ${caseId} not recorded`, { error: String(err) }));
    }
    onNext();
  };

  if (failed) {
    return (
      <div className="outcome-feedback" role="alert">
        <p className="notice notice-warning">{t('main.feedback.failed')}</p>
        <div className="button-row sticky-actions">
          <Button className="button" onPress={() => setAttempt((n) => n + 1)}>
            {t('main.feedback.retry')}
          </Button>
          <Button className="button button-primary" onPress={onNext}>
            {t('main.feedback.next')}
          </Button>
        </div>
      </div>
    );
  }
  if (!feedback) {
    return (
      <p className="spinner-line" role="status">
        <span className="spinner" aria-hidden="true" />
        {t('main.feedback.loading')}
      </p>
    );
  }
  return (
    <div className="outcome-feedback" data-testid="outcome-feedback">
      <section className="card">
        <h2>{t('main.feedback.title')}</h2>
        <p className="feedback-truth" data-testid="feedback-truth">
          <span>{t('main.feedback.truth')}</span> <strong>{label(feedback.ground_truth)}</strong>
        </p>
        <Verdict label={t('main.feedback.yours')} answer={label(feedback.final_prediction)} correct={feedback.final_correct} testId="feedback-yours" />
        {feedback.ai_prediction !== null && feedback.ai_correct !== null ? (
          <Verdict label={t('main.feedback.ai')} answer={label(feedback.ai_prediction)} correct={feedback.ai_correct} testId="feedback-ai" />
        ) : null}
      </section>
      <div className="button-row sticky-actions">
        <Button className="button button-primary" onPress={next}>
          {t('main.feedback.next')}
        </Button>
      </div>
    </div>
  );
}
