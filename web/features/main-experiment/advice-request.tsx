/**
 * The AI's advice when a condition holds it back: the button that asks for it (advice on request)
 * and the countdown of a forced wait, both in the answer bar's top line on a phone, so they stay in
 * view above the judgement however far the case scrolls.
 */
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { useSecondsLeft } from '../../lib/use-seconds-left';
import type { AdviceRequest } from './case-flow-machine';

/** The forced wait before the AI's own step shows it, counted down (`readyAt`: when it ends; null: the server has not said yet). */
export function AdviceCountdown({ readyAt }: { readyAt: number | null }) {
  const { t } = useTranslation();
  const seconds = useSecondsLeft(readyAt);
  return (
    <p className="notice notice-info advice-countdown" role="timer" aria-label={t('main.advice.countdownLabel')} data-testid="advice-countdown">
      {seconds === null ? t('main.advice.preparing') : t('main.advice.appearsIn', { seconds })}
    </p>
  );
}

/** The offer of the AI on the final judgement's step: its button (held back by a wait), loading, or a failure to try again. */
export function AdviceOffer({
  request,
  predictionOnly,
  readyAt,
  waitOver,
  onRequest,
}: {
  request: Exclude<AdviceRequest, { state: 'shown' }>;
  predictionOnly: boolean;
  readyAt: number | null;
  waitOver: boolean;
  onRequest: () => void;
}) {
  const { t } = useTranslation();
  const seconds = useSecondsLeft(waitOver ? null : readyAt);
  const label = predictionOnly ? t('main.advice.offerPrediction') : t('main.advice.offerExplanation');
  return (
    <div className="advice-offer" data-testid="advice-offer" data-state={request.state}>
      {request.state === 'failed' ? (
        <p className="notice notice-error" role="alert">
          {t('main.advice.failed')} <span className="muted">{request.detail}</span>
        </p>
      ) : (
        <p className="advice-lead muted">{t('main.advice.offerLead')}</p>
      )}
      <Button className="button advice-button" onPress={onRequest} isDisabled={!waitOver || request.state === 'asked'}>
        {request.state === 'asked'
          ? t('main.advice.loading')
          : !waitOver
            ? seconds === null
              ? t('main.advice.preparing')
              : t('main.advice.waiting', { seconds })
            : request.state === 'failed'
              ? t('main.advice.retry')
              : label}
      </Button>
    </div>
  );
}
