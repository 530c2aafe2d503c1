import { useTranslation } from 'react-i18next';
import type { ParticipantCase } from '../../../worker/schemas/experiment';
import { studyConfig, type DatasetType } from '../../../worker/schemas/study-config';
import { ExplanationChart } from '../../components/ui/explanation-chart';
import { predictionColours } from '../../lib/prediction-style';
import { showsAiBaseline, type ShownExplanation } from './explanation';

/**
 * What the study shows with the AI's prediction: its label in its dataset's colour, the AI's
 * confidence where the condition shows it, the accuracy note the condition states and, where the study enables
 * it, the AI's starting point. The panel opens with it; the final judgement's answer bar repeats
 * it, so the AI's answer stays in view while deciding.
 */
export function AiPrediction({
  datasetType,
  explanation,
  baselineEnabled = studyConfig.mainExperiment.showAiBaseline,
}: {
  datasetType: DatasetType;
  explanation: ShownExplanation;
  baselineEnabled?: boolean;
}) {
  const { t } = useTranslation();
  const colours = predictionColours[datasetType];
  const positive = t(`main.labels.${datasetType}.positive`);
  const negative = t(`main.labels.${datasetType}.negative`);
  // The server's figure (the fixed one where the model has none recorded), or none where the condition states none.
  const accuracy = explanation.statedAccuracy;
  return (
    <div className="ai-prediction-summary">
      <p className="ai-prediction">
        <span>{t('main.panel.prediction')}</span>
        <strong className="prediction-chip" style={{ background: explanation.prediction === 1 ? colours.positive : colours.negative }} data-testid="ai-prediction">
          {explanation.prediction === 1 ? positive : negative}
        </strong>
      </p>
      {explanation.aiConfidence !== null ? (
        <p className="ai-confidence" data-testid="ai-confidence">
          {t('main.panel.confidence', { value: (explanation.aiConfidence * 100).toFixed(0) })}
        </p>
      ) : null}
      {accuracy !== null ? (
        <p className="muted accuracy-note" data-testid="accuracy-note">
          {t('main.panel.accuracy', { value: (accuracy * 100).toFixed(1) })}
        </p>
      ) : null}
      {showsAiBaseline(explanation, baselineEnabled) && explanation.aiBaseProbability !== null && explanation.aiProbability !== null ? (
        <p className="ai-baseline" data-testid="ai-baseline">
          {t('main.panel.baseline', {
            base: (explanation.aiBaseProbability * 100).toFixed(0),
            probability: (explanation.aiProbability * 100).toFixed(0),
            label: positive,
          })}
        </p>
      ) : null}
    </div>
  );
}

/**
 * The AI explanation panel (part 2 §2.2): the AI's prediction with its dataset's label and
 * colour, the accuracy note, and one bar per feature pointing toward the label it pushes to.
 * Whether the bars are the AI's own or aligned to the participant is never shown: that is the
 * study's manipulation, disclosed only in the post-survey.
 */
export function ExplanationPanel({
  datasetType,
  explanation,
  features,
  loading = false,
  predictionOnly = explanation?.kind === 'prediction_only',
  baselineEnabled = studyConfig.mainExperiment.showAiBaseline,
}: {
  datasetType: DatasetType;
  explanation: ShownExplanation | null;
  features: ParticipantCase['features'];
  loading?: boolean;
  /** The condition shows the AI's prediction without bars. */
  predictionOnly?: boolean;
  /** The study configuration's showAiBaseline (a prop so a study's variant can be rendered and tested). */
  baselineEnabled?: boolean;
}) {
  const { t } = useTranslation();
  if (loading || !explanation) {
    return (
      <section className="explanation-panel" aria-busy="true">
        <h2>{t(predictionOnly ? 'main.panel.predictionTitle' : 'main.panel.title')}</h2>
        <p className="spinner-line">
          <span className="spinner" aria-hidden="true" />
          {t(predictionOnly ? 'main.panel.predicting' : 'main.panel.generating')}
        </p>
      </section>
    );
  }
  return (
    <section className="explanation-panel" aria-labelledby="explanation-title">
      <h2 id="explanation-title">{t(predictionOnly ? 'main.panel.predictionTitle' : 'main.panel.title')}</h2>
      <AiPrediction datasetType={datasetType} explanation={explanation} baselineEnabled={baselineEnabled} />
      {predictionOnly ? null : <ExplanationChart datasetType={datasetType} shown={explanation.shown} features={features} />}
    </section>
  );
}
