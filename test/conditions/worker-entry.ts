/**
 * The platform's own Worker, run with the design of `design.ts` as its study configuration's
 * conditions (validated by the configuration's schema as an edit of study-config.ts would be).
 */
import worker from '../../worker/index';
import { studyConfig, studyConfigSchema } from '../../worker/schemas/study';
import { DESIGN } from './design';

const { conditions } = studyConfigSchema.parse({ ...studyConfig, conditions: DESIGN });
studyConfig.conditions.splice(0, studyConfig.conditions.length, ...conditions);

export default worker;
// The classes wrangler.toml binds (the export Workflow) come from the entry, as from worker/index.ts.
export { ExportWorkflow } from '../../worker/index';
