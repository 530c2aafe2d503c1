/**
 * Each dataset's prediction colours (part 2 §2.2: "the prediction label and colour per
 * dataset"): the positive and the negative label each keep one colour wherever a prediction or
 * a bar pointing toward it is drawn. All pass WCAG AA for white text.
 */
import type { DatasetType } from '../../worker/schemas/study-config';

export const predictionColours: Record<DatasetType, { positive: string; negative: string }> = {
  adult_income: { positive: '#1a7f37', negative: '#5a6270' },
  speed_dating: { positive: '#b0266d', negative: '#5a6270' },
  compas: { positive: '#b42318', negative: '#1a6b8f' },
};
