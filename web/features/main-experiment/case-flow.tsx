import { useEffect, useRef, type ReactNode, type RefObject } from 'react';
import { Button } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { MainCase } from '../../../worker/schemas/main-experiment';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { CaseCard } from '../../components/ui/case-card';
import { JudgementInput, type TimedJudgement } from '../../components/ui/judgement-input';
import { stepIndex, type CaseRecord, type KeptSteps } from './case-flow-machine';
import type { CasePlan, StepName } from './condition-plan';
import { AdviceCountdown, AdviceOffer } from './advice-request';
import { AiPrediction, ExplanationPanel } from './explanation-panel';
import { SurveyStep } from './survey-step';
import { useCaseFlow } from './use-case-flow';

function StepIndicator({ steps, current }: { steps: readonly StepName[]; current: number }) {
  const { t } = useTranslation();
  return (
    <ol className="step-indicator" aria-label={t('main.steps.label')}>
      {steps.map((step, i) => (
        <li key={step} data-state={i < current ? 'done' : i === current ? 'current' : 'todo'} aria-current={i === current ? 'step' : undefined}>
          <span className="step-number">{i + 1}</span>
          <span className="step-name">{t(`main.steps.${step}`)}</span>
        </li>
      ))}
    </ol>
  );
}

/** The participant's own first judgement, shown beside the AI's (part 2 §2.1 "Final screen"). */
function InitialJudgementSummary({ judgement, datasetType }: { judgement: TimedJudgement; datasetType: DatasetType }) {
  const { t } = useTranslation();
  const levels = t('judgement.confidenceLevels', { returnObjects: true }) as string[];
  return (
    <section className="initial-summary" data-testid="initial-summary">
      <h3>{t('main.initialTitle')}</h3>
      <p>
        <strong>{t(`main.labels.${datasetType}.${judgement.prediction === 1 ? 'positive' : 'negative'}`)}</strong>
        <span className="muted"> · {t('main.confidenceShort', { value: judgement.confidence, label: levels[judgement.confidence - 1] })}</span>
      </p>
      {judgement.reasoning ? <p className="initial-reasoning">{judgement.reasoning}</p> : null}
    </section>
  );
}

/** On a phone, the participant's own first judgement in one line at the top of the answer bar, in view while the final one is given (issue #59, point 4). */
function InitialJudgementReminder({ judgement, datasetType }: { judgement: TimedJudgement; datasetType: DatasetType }) {
  const { t } = useTranslation();
  return (
    <p className="initial-reminder" data-testid="initial-reminder">
      {t('main.initialTitle')}: <strong>{t(`main.labels.${datasetType}.${judgement.prediction === 1 ? 'positive' : 'negative'}`)}</strong>
      <span className="muted"> · {t('main.confidenceValue', { value: judgement.confidence })}</span>
    </p>
  );
}

/**
 * One case through its steps: in the spec's design (part 2 §2.1) initial judgement → AI
 * explanation → final judgement → survey; in another condition the steps its `plan` lists (the AI
 * shown with the case, its prediction alone, or no AI). The real cases and the practice case both
 * use it; `header` shows the progress of the phase. Each step opens at the top of `scroller` (the
 * page when absent).
 */
export function CaseFlow({
  sessionId,
  item,
  datasetType,
  alpha,
  plan,
  header,
  scroller,
  onDone,
  onResume,
  recorded,
  afterDone,
}: {
  sessionId: string;
  item: MainCase;
  datasetType: DatasetType;
  alpha: number | null;
  plan: CasePlan;
  header?: ReactNode;
  scroller?: RefObject<HTMLElement | null>;
  onDone: (record: CaseRecord) => void;
  /** Offered on the failure screen when the phase can resume from the server's state. */
  onResume?: () => void;
  /**
   * A case of the participant's main set: the server keeps its steps (`kept`: what it kept before
   * this page opened it; `first`: no case of the set is stored or saved yet, so the server is told
   * when it opens, and a reload comes back to it rather than to the introduction).
   */
  recorded?: { kept: KeptSteps | null; onMovedOn: () => void; first?: boolean };
  /** What the case shows once done, in place of "saved" (its outcome, where the condition gives it). */
  afterDone?: ReactNode;
}) {
  const { t } = useTranslation();
  const flow = useCaseFlow({ sessionId, caseId: item.case_id, alpha, plan, onDone, recorded });
  const { step } = flow.state;

  useEffect(() => {
    const target = scroller?.current;
    if (target) target.scrollTo({ top: 0 });
    else window.scrollTo(0, 0);
  }, [step.kind, scroller]);
  // The AI asked for appears on the same step: it is brought into view.
  const advicePanel = useRef<HTMLDivElement>(null);
  const adviceShown = step.kind === 'final' && step.request?.state === 'shown';
  useEffect(() => {
    if (adviceShown) advicePanel.current?.scrollIntoView?.({ block: 'start' });
  }, [adviceShown]);

  const card = <CaseCard case={item} datasetType={datasetType} />;

  let body: ReactNode;
  switch (step.kind) {
    case 'initial':
      body = (
        <div className="case-layout">
          {card}
          <JudgementInput key="initial" datasetType={datasetType} labels="main.labels" onSubmit={flow.submitInitial} deadline={flow.deadline} />
        </div>
      );
      break;
    case 'explaining':
      body = (
        <div className="case-layout">
          {/* A forced wait is counted down where the AI will appear; the panel loads once it is over. */}
          {flow.adviceWaitOver ? (
            <ExplanationPanel datasetType={datasetType} explanation={null} features={item.features} predictionOnly={plan.ai === 'prediction'} loading />
          ) : (
            <AdviceCountdown readyAt={flow.adviceReadyAt} />
          )}
          {card}
        </div>
      );
      break;
    case 'failed':
      body = (
        <div className="explanation-failed" role="alert">
          <h2 className="error-title">{t('main.explanationFailed')}</h2>
          <p className="error-detail">{step.detail}</p>
          <p className="muted">{t('main.explanationFailedHelp')}</p>
          <div className="button-row">
            <Button className="button button-primary" onPress={flow.retryExplanation}>
              {t('main.retryExplanation')}
            </Button>
            {onResume ? (
              <Button className="button" onPress={onResume}>
                {t('main.resumeFromHere')}
              </Button>
            ) : null}
            <Button className="button" onPress={() => window.location.reload()}>
              {t('main.reload')}
            </Button>
          </div>
        </div>
      );
      break;
    case 'explanation':
      body = (
        <>
          <div className="case-layout">
            <div className="explanation-column">
              <ExplanationPanel datasetType={datasetType} explanation={step.explanation} features={item.features} />
              {step.initial ? <InitialJudgementSummary judgement={step.initial} datasetType={datasetType} /> : null}
            </div>
            {card}
          </div>
          <div className="button-row sticky-actions">
            <Button className="button button-primary" onPress={flow.confirmExplanation}>
              {t(plan.ai === 'prediction' ? 'main.toFinalPrediction' : 'main.toFinal')}
            </Button>
          </div>
        </>
      );
      break;
    case 'final': {
      const { explanation, initial, request } = step;
      // The AI's answer stays beside the participant's own while they decide, however far the page scrolls; on request, the button that asks for it.
      const finalContext = explanation ? (
        <div className="final-ai-reminder" data-testid="final-ai-reminder">
          <AiPrediction datasetType={datasetType} explanation={explanation} />
        </div>
      ) : request && request.state !== 'shown' ? (
        <AdviceOffer request={request} predictionOnly={plan.ai === 'prediction'} readyAt={flow.adviceReadyAt} waitOver={flow.adviceWaitOver} onRequest={flow.requestAdvice} />
      ) : null;
      const lead = !initial ? (explanation ? `main.judgementLead.${plan.ai}` : null) : explanation ? (plan.ai === 'prediction' ? 'main.finalLeadPrediction' : 'main.finalLead') : 'main.finalLeadAlone';
      body = (
        <div className="case-layout">
          <div className="explanation-column">
            {card}
            {explanation ? (
              <div ref={advicePanel}>
                <ExplanationPanel datasetType={datasetType} explanation={explanation} features={item.features} />
              </div>
            ) : null}
          </div>
          <div className="final-column">
            {initial ? <InitialJudgementSummary judgement={initial} datasetType={datasetType} /> : null}
            {lead ? <p className="final-lead">{t(lead)}</p> : null}
            <JudgementInput
              key="final"
              datasetType={datasetType}
              labels="main.labels"
              onSubmit={flow.submitFinal}
              deadline={flow.deadline}
              context={
                <>
                  {initial ? <InitialJudgementReminder judgement={initial} datasetType={datasetType} /> : null}
                  {finalContext}
                </>
              }
            />
          </div>
        </div>
      );
      break;
    }
    case 'survey':
      // The questions ask about this case's explanation (or prediction): it is in view while they are answered.
      body = (
        <SurveyStep
          items={plan.ratings}
          about={plan.ai === 'prediction' ? 'prediction' : 'explanation'}
          rated={step.explanation ? <ExplanationPanel datasetType={datasetType} explanation={step.explanation} features={item.features} /> : undefined}
          onSubmit={flow.submitSurvey}
          draft={recorded ? { sessionId, caseId: item.case_id } : undefined}
        />
      );
      break;
    case 'done':
      body = afterDone ?? (
        <p className="notice notice-info" role="status">
          {t('main.saved')}
        </p>
      );
      break;
  }

  return (
    <div className="case-flow" data-step={step.kind}>
      {header}
      <StepIndicator steps={plan.steps} current={stepIndex(step, plan)} />
      {body}
    </div>
  );
}
