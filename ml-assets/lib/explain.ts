/** `ml explain`: loads a model file (xdl-gbdt, or a LightGBM dump with encoding.json beside it) and explains CSV rows. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { importLightgbmDump, isLightgbmDump } from '../../worker/ml/lightgbm-import';
import { compileModel, encodeRow, gbdtModelSchema, type GbdtModel } from '../../worker/ml/model';
import { predictRaw, sigmoid } from '../../worker/ml/predict';
import { createShapWorkspace, treeShap } from '../../worker/ml/treeshap';
import { readCsvRows } from './fixtures';

export function loadModelFile(file: string): GbdtModel {
  const json = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  if (!isLightgbmDump(json)) return gbdtModelSchema.parse(json);
  const encodingFile = path.join(path.dirname(file), 'encoding.json');
  return importLightgbmDump(json, existsSync(encodingFile) ? JSON.parse(readFileSync(encodingFile, 'utf8')) : undefined);
}

export type Explanation = {
  raw_score: number;
  probability: number;
  contributions: Record<string, number>;
  base_value: number;
};

/** One explanation per CSV row, in row order. Extra columns (such as a label) are ignored. */
export function* explainCsv(modelFile: string, csvFile: string): Generator<Explanation> {
  const model = loadModelFile(modelFile);
  const compiled = compileModel(model);
  const workspace = createShapWorkspace(compiled);
  for (const row of readCsvRows(csvFile)) {
    const x = encodeRow(model, row);
    const raw = predictRaw(compiled, x);
    const phi = treeShap(compiled, x, workspace);
    yield {
      raw_score: raw,
      probability: sigmoid(raw),
      contributions: Object.fromEntries(model.feature_names.map((name, i) => [name, phi[i]!])),
      base_value: phi[model.feature_names.length]!,
    };
  }
}
