/**
 * Human-aligned explanations (the study's manipulation): the AI model's TreeSHAP contributions
 * and the participant's own model's, each normalised to shares whose absolute values sum to 1,
 * mixed as alpha × AI share + (1 − alpha) × user share and renormalised. Alpha 1 shows the AI's
 * own explanation; alpha 0 shows the participant's judgement pattern in the AI's place.
 */
import type { CompiledModel } from './model';
import { createShapWorkspace, treeShap } from './treeshap';

/** One feature's part in an explanation. `importance` is its signed share; `raw_shap` the model's own value. */
export type FeatureContribution = { feature: string; importance: number; abs_importance: number; raw_shap: number };

/** A user explanation counts only when some contribution is at least this far from zero (part 2 §4). */
export const USER_EXPLANATION_EPSILON = 1e-4;

function shares(features: readonly string[], values: ArrayLike<number>): FeatureContribution[] {
  let total = 0;
  for (let i = 0; i < features.length; i++) total += Math.abs(values[i]!);
  return features.map((feature, i) => {
    const importance = total > 0 ? values[i]! / total : 0;
    return { feature, importance, abs_importance: Math.abs(importance), raw_shap: values[i]! };
  });
}

/**
 * Normalises SHAP values (one per feature, the base value left out) to signed shares whose
 * absolute values sum to 1; all zeros stay zeros.
 */
export const normaliseContributions = (features: readonly string[], shap: ArrayLike<number>) => shares(features, shap);

/** Whether the participant's model says anything about this case (part 2 §4's 0.0001 rule). */
export const userExplanationCounts = (user: readonly FeatureContribution[]) => user.some((c) => Math.abs(c.raw_shap) > USER_EXPLANATION_EPSILON);

/** The spec's user-model prediction: 1 when the participant model's shares sum above 0 (it ignores the base value). */
export const userModelPredictionFromShares = (user: readonly FeatureContribution[]) => (user.reduce((s, c) => s + c.importance, 0) > 0 ? 1 : 0);

/**
 * Whether bars lean, as a whole, toward `label`: their signed shares sum above 0 for the positive
 * class, below 0 for the negative. Shares carry no starting point (the model's base value), so bars
 * can lean against the prediction they explain; null without bars.
 */
export function sharesLeanToward(bars: readonly { importance: number }[] | null | undefined, label: 0 | 1): boolean | null {
  if (!bars || bars.length === 0) return null;
  const sum = bars.reduce((s, c) => s + c.importance, 0);
  return label === 1 ? sum > 0 : sum < 0;
}

/**
 * The bars shown: alpha × AI share + (1 − alpha) × user share per feature, renormalised so
 * absolute values sum to 1. Features are matched by name; one the user model lacks counts as 0.
 * `raw_shap` of a mixed bar is the same mix of the two models' raw values.
 */
export function mixContributions(ai: readonly FeatureContribution[], user: readonly FeatureContribution[], alpha: number): FeatureContribution[] {
  if (alpha < 0 || alpha > 1 || Number.isNaN(alpha)) throw new RangeError(`alpha ${alpha} is outside [0, 1]`);
  const byName = new Map(user.map((c) => [c.feature, c]));
  const mixed = ai.map((c) => {
    const u = byName.get(c.feature);
    return { share: alpha * c.importance + (1 - alpha) * (u?.importance ?? 0), raw: alpha * c.raw_shap + (1 - alpha) * (u?.raw_shap ?? 0) };
  });
  const renormalised = shares(
    ai.map((c) => c.feature),
    mixed.map((m) => m.share),
  );
  return renormalised.map((c, i) => ({ ...c, raw_shap: mixed[i]!.raw }));
}

/**
 * Global feature importance: the mean absolute TreeSHAP contribution of each feature over a set
 * of rows (Lundberg et al., 2020, "From local explanations to global understanding with
 * explainable AI for trees"), largest first.
 */
export function meanAbsoluteShap(model: CompiledModel, rows: readonly Float64Array[]): { feature: string; mean_abs_shap: number }[] {
  const sums = new Float64Array(model.numFeatures);
  const workspace = createShapWorkspace(model);
  for (const x of rows) {
    const phi = treeShap(model, x, workspace);
    for (let f = 0; f < model.numFeatures; f++) sums[f]! += Math.abs(phi[f]!);
  }
  return model.featureNames
    .map((feature, f) => ({ feature, mean_abs_shap: rows.length > 0 ? sums[f]! / rows.length : 0 }))
    .sort((a, b) => b.mean_abs_shap - a.mean_abs_shap);
}

/** The shape of a model's trees: count, leaves, depth, and how often each feature is split on. */
export function treeSummary(model: CompiledModel) {
  const leaves = model.trees.map((t) => t.numLeaves);
  const depths = model.trees.map((t) => t.maxDepth);
  const splits = new Array<number>(model.numFeatures).fill(0);
  for (const feature of model.nodes.splitFeature) splits[feature]!++;
  return {
    num_trees: model.trees.length,
    num_features: model.numFeatures,
    total_leaves: leaves.reduce((a, b) => a + b, 0),
    mean_leaves: leaves.reduce((a, b) => a + b, 0) / Math.max(1, leaves.length),
    max_leaves: Math.max(...leaves),
    max_depth: Math.max(...depths),
    mean_depth: depths.reduce((a, b) => a + b, 0) / Math.max(1, depths.length),
    splits_per_feature: model.featureNames.map((feature, f) => ({ feature, splits: splits[f]! })).sort((a, b) => b.splits - a.splits),
  };
}
