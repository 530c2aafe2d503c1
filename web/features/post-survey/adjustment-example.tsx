import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { SAMPLE_ROLES, sampleShares, understandingSampleOf } from '../../../worker/schemas/understanding-test';
import { studyConfig, type DatasetType } from '../../../worker/schemas/study-config';
import { ExplanationChart, type FeatureBar } from '../../components/ui/explanation-chart';
import { api, unwrap } from '../../lib/api';
import { storedParticipant } from '../../lib/participant';

type Example = { datasetType: DatasetType; before: FeatureBar[]; after: FeatureBar[]; features: Record<string, string | number | null>; own: boolean; alpha: number };

const bar = (feature: string, share: number): FeatureBar => ({ feature, importance: share, abs_importance: Math.abs(share), raw_shap: share });

/** The understanding test's sample for the dataset: the AI's bars against the alpha 0.5 mix. */
function sampleExample(datasetType: DatasetType): Example {
  const sample = understandingSampleOf(datasetType);
  return {
    datasetType,
    before: SAMPLE_ROLES.map((r) => bar(sample.features[r].feature, sample.features[r].ai)),
    after: sampleShares(sample).map((b) => bar(b.feature, b.share)),
    features: Object.fromEntries(SAMPLE_ROLES.map((r) => [sample.features[r].feature, sample.features[r].value])),
    own: false,
    alpha: 0.5,
  };
}

/**
 * Before/after adjustment charts for the benevolent-deception explanation (part 2 §2.4): one of
 * the participant's own cases where the shown bars were a mix (the most adjusted one), or the
 * study's sample when none was.
 */
export function AdjustmentExample({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation();
  const [example, setExample] = useState<Example | null>(null);
  useEffect(() => {
    let cancelled = false;
    const fallback = () => sampleExample(storedParticipant()?.datasetType ?? studyConfig.defaultDatasetType);
    api.api['post-survey'].example[':sessionId']
      .$get({ param: { sessionId } })
      .then(unwrap)
      .then((r) => {
        if (cancelled) return;
        const e = r.example;
        setExample(e && e.before.length > 0 ? { datasetType: e.dataset_type, before: e.before, after: e.after, features: e.features, own: true, alpha: e.alignment_alpha } : fallback());
      })
      .catch(() => !cancelled && setExample(fallback()));
    return () => {
      cancelled = true;
    };
  }, [sessionId]);
  if (!example) return <p className="muted">{t('common.loading')}</p>;
  return (
    <div className="adjustment-example" data-testid="adjustment-example" data-own={example.own}>
      <p className="muted">{example.own ? t('postSurvey.example.own', { percent: Math.round((1 - example.alpha) * 100) }) : t('postSurvey.example.sample')}</p>
      <div className="adjustment-charts">
        <ExplanationChart datasetType={example.datasetType} shown={example.before} features={example.features} caption={t('postSurvey.example.before')} />
        <ExplanationChart datasetType={example.datasetType} shown={example.after} features={example.features} caption={t(example.own ? 'postSurvey.example.after' : 'postSurvey.example.afterSample')} />
      </div>
    </div>
  );
}
