/**
 * Each dataset's prediction colours (part 2 §2.2: "the prediction label and colour per
 * dataset"): the positive and the negative label each keep one colour wherever a prediction or
 * a bar pointing toward it is drawn. All pass WCAG AA for white text.
 */
import { DATASETS } from '../../worker/schemas/datasets';
import type { DatasetType } from '../../worker/schemas/study-config';

/** From each dataset's definition. */
export const predictionColours = Object.fromEntries(Object.entries(DATASETS).map(([id, d]) => [id, d.colours])) as Record<DatasetType, { positive: string; negative: string }>;
