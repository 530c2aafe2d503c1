/**
 * `npm run ml -- <command>`:
 *   prepare [--force]                  validate every dataset definition, verify its source, draw case pools, train the AI model
 *   train --dataset D                  rebuild one dataset's case pools and AI model
 *   evaluate --dataset D               compare our trainer with LightGBM on the reference split
 *   explain --model FILE --csv ROWS    one JSON line per row: raw_score, probability, contributions, base_value
 *   seed [--persist-to DIR]            load cases and AI models into the local D1 and R2
 */
import { parseArgs } from 'node:util';
import { datasetTypeSchema } from '../worker/schemas/study';
import { allDefinitions } from './lib/definitions';
import { writeDatasetRegistry } from './lib/dataset-registry';
import { compareWithReference } from './lib/evaluate';
import { explainCsv } from './lib/explain';
import { isSetUpError, prepareAll, prepareDataset, readAssets } from './lib/prepare';
import { seedLocal } from './lib/seed';

const USAGE = `usage: npm run ml -- <prepare|train|evaluate|explain|seed> [options]
  prepare [--force]
  train --dataset <a defined dataset: adult_income, speed_dating, compas or your own>
  evaluate --dataset <adult_income|speed_dating|compas>
  explain --model FILE --csv ROWS.csv
  seed [--persist-to DIR]`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    dataset: { type: 'string' },
    model: { type: 'string' },
    csv: { type: 'string' },
    force: { type: 'boolean', default: false },
    'persist-to': { type: 'string' },
  },
});

/** A dataset some definition defines (the three shipped ones or a researcher's own). */
function requireDefinedDataset() {
  const ids = allDefinitions().map((d) => d.id);
  if (!values.dataset || !ids.includes(values.dataset)) throw new UsageError(`--dataset must be one of ${ids.join(', ')}`);
  return values.dataset;
}

/** One of the shipped datasets (the LightGBM reference exists for these only). */
function requireDataset() {
  const parsed = datasetTypeSchema.safeParse(values.dataset);
  if (!parsed.success) throw new UsageError('--dataset must be adult_income, speed_dating or compas');
  return parsed.data;
}

class UsageError extends Error {}

async function main(): Promise<void> {
  switch (positionals[0]) {
    case 'prepare':
      prepareAll({ force: values.force, log: (line) => console.log(line), definitions: writeDatasetRegistry() });
      return;

    case 'train': {
      const { report } = prepareDataset(requireDefinedDataset());
      console.log(JSON.stringify(report, null, 2));
      return;
    }
    case 'evaluate': {
      const dataset = requireDataset();
      const reference = compareWithReference(dataset);
      prepareAll({ log: () => {} });
      const platform = readAssets(dataset).report;
      console.log(JSON.stringify({ reference, platform_model: platform }, null, 2));
      if (!reference.meets_bar) process.exitCode = 1;
      return;
    }
    case 'explain': {
      if (!values.model || !values.csv) throw new UsageError('explain needs --model FILE and --csv ROWS.csv');
      for (const explanation of explainCsv(values.model, values.csv)) process.stdout.write(`${JSON.stringify(explanation)}\n`);
      return;
    }
    case 'seed':
      prepareAll({ log: (line) => console.log(line) });
      await seedLocal({ persistTo: values['persist-to'], stdio: 'inherit' });
      return;
    default:
      throw new UsageError(positionals[0] ? `unknown command ${positionals[0]}` : 'no command given');
  }
}

main().catch((err: unknown) => {
  if (err instanceof UsageError) console.error(`${err.message}\n${USAGE}`);
  else if (isSetUpError(err)) console.error(err.message);
  else console.error(err);
  process.exitCode = 2;
});
