/**
 * Imports a model trained with LightGBM in Python (`booster.dump_model()` JSON) into the
 * platform's `xdl-gbdt` format, so researchers can bring their own models. Supports numeric and
 * categorical splits, `missing_type` None/Zero/NaN, `default_left`, single-leaf trees, and the
 * category code mapping of an `encoding.json` (raw category string → integer code).
 */
import { z } from 'zod';
import { DecisionType, emptyTree, MODEL_FORMAT, MODEL_FORMAT_VERSION, MissingType, gbdtModelSchema, type GbdtModel, type SerializedTree } from './model';

type DumpNode = {
  split_feature?: number;
  threshold?: number | string;
  decision_type?: string;
  default_left?: boolean;
  missing_type?: string;
  internal_count?: number;
  left_child?: DumpNode;
  right_child?: DumpNode;
  leaf_index?: number;
  leaf_value?: number;
  leaf_count?: number;
};

const dumpNodeSchema: z.ZodType<DumpNode> = z.lazy(() =>
  z.union([
    z.object({
      split_index: z.number().int(),
      split_feature: z.number().int().nonnegative(),
      threshold: z.union([z.number(), z.string()]),
      decision_type: z.enum(['<=', '==']),
      default_left: z.boolean(),
      missing_type: z.enum(['None', 'Zero', 'NaN']),
      internal_count: z.number().nonnegative(),
      left_child: dumpNodeSchema,
      right_child: dumpNodeSchema,
    }),
    z.object({
      leaf_index: z.number().int().nonnegative().optional(),
      leaf_value: z.number(),
      leaf_count: z.number().nonnegative().optional(),
    }),
  ]),
);

export const lightgbmDumpSchema = z.object({
  name: z.literal('tree'),
  version: z.string(),
  num_class: z.literal(1, { message: 'only binary models (num_class 1) are supported' }),
  num_tree_per_iteration: z.literal(1),
  objective: z.string().refine((o) => o.startsWith('binary'), 'only the binary objective is supported'),
  average_output: z.boolean().optional(),
  feature_names: z.array(z.string()).min(1),
  tree_info: z
    .array(
      z.object({
        tree_index: z.number().int(),
        num_leaves: z.number().int().min(1),
        shrinkage: z.number().optional(),
        tree_structure: dumpNodeSchema,
      }),
    )
    .min(1),
});
export type LightgbmDump = z.infer<typeof lightgbmDumpSchema>;

/** The `encoding.json` beside a dump: feature order, categorical features and their code tables. */
export const lightgbmEncodingSchema = z.object({
  feature_names: z.array(z.string()),
  categorical_features: z.array(z.string()).default([]),
  category_codes: z.record(z.string(), z.record(z.string(), z.number().int())).default({}),
});
export type LightgbmEncoding = z.infer<typeof lightgbmEncodingSchema>;

const MISSING: Record<string, 0 | 1 | 2> = { None: MissingType.None, Zero: MissingType.Zero, NaN: MissingType.NaN };

function convertTree(root: DumpNode, numLeaves: number): SerializedTree {
  const tree: SerializedTree = {
    ...emptyTree(numLeaves),
    leaf_value: new Array<number>(numLeaves).fill(0),
    leaf_count: new Array<number>(numLeaves).fill(0),
  };
  if (numLeaves === 1) {
    tree.leaf_value[0] = root.leaf_value ?? 0;
    tree.leaf_count[0] = root.leaf_count ?? 0;
    return tree;
  }
  let nextLeaf = 0;
  // Internal nodes are numbered in pre-order; leaves keep their dumped index when present.
  const visit = (node: DumpNode): number => {
    if (node.split_feature === undefined) {
      const leaf = node.leaf_index ?? nextLeaf;
      nextLeaf = Math.max(nextLeaf, leaf + 1);
      tree.leaf_value[leaf] = node.leaf_value!;
      tree.leaf_count[leaf] = node.leaf_count ?? 0;
      return ~leaf;
    }
    const index = tree.split_feature.length;
    tree.split_feature.push(node.split_feature);
    tree.default_left.push(node.default_left ? 1 : 0);
    tree.missing_type.push(MISSING[node.missing_type!]!);
    tree.internal_count.push(node.internal_count!);
    if (node.decision_type === '==') {
      tree.decision_type.push(DecisionType.Categorical);
      tree.threshold.push(tree.cat_sets.length);
      tree.cat_sets.push(String(node.threshold).split('||').map((code) => Number.parseInt(code, 10)));
    } else {
      tree.decision_type.push(DecisionType.Numeric);
      tree.threshold.push(Number(node.threshold));
    }
    tree.left_child.push(0);
    tree.right_child.push(0);
    tree.left_child[index] = visit(node.left_child!);
    tree.right_child[index] = visit(node.right_child!);
    return index;
  };
  visit(root);
  return tree;
}

/**
 * Converts a LightGBM dump. Without an encoding, categorical features are taken from the dump's
 * categorical splits and raw values must already be integer codes.
 */
export function importLightgbmDump(dumpJson: unknown, encodingJson?: unknown): GbdtModel {
  const dump = lightgbmDumpSchema.parse(dumpJson);
  const encoding = encodingJson === undefined ? undefined : lightgbmEncodingSchema.parse(encodingJson);
  if (encoding && encoding.feature_names.join('\u0000') !== dump.feature_names.join('\u0000')) {
    throw new Error('encoding.json feature_names do not match the model feature order');
  }
  const trees = dump.tree_info.map((t) => convertTree(t.tree_structure, t.num_leaves));
  const categoricalFromSplits = new Set<string>();
  for (const tree of trees) {
    tree.decision_type.forEach((d, i) => {
      if (d === DecisionType.Categorical) categoricalFromSplits.add(dump.feature_names[tree.split_feature[i]!]!);
    });
  }
  return gbdtModelSchema.parse({
    format: MODEL_FORMAT,
    version: MODEL_FORMAT_VERSION,
    objective: 'binary',
    feature_names: dump.feature_names,
    categorical_features: encoding?.categorical_features ?? [...categoricalFromSplits],
    category_codes: encoding?.category_codes ?? {},
    trees,
    metadata: { source: `lightgbm ${dump.version} dump_model()`, num_trees: trees.length },
  });
}

/** True when a parsed JSON file looks like a LightGBM dump rather than an `xdl-gbdt` model. */
export const isLightgbmDump = (json: unknown): boolean =>
  typeof json === 'object' && json !== null && 'tree_info' in json && 'feature_names' in json;
