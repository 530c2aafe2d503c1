/**
 * How many cases each participant judges in each phase: the study configuration's
 * `preExperiment.numCases` and `mainExperiment.numCases`, kept here on their own (no imports) so
 * that set-up, which runs before anything is generated, checks a dataset's pools against them too.
 */
export const STUDY_CASE_COUNTS = { pre: 200, main: 50 } as const;

/**
 * What a dataset's pools lack to take a participant through the study, each naming both numbers
 * (empty when they suffice): a pool smaller than its phase's count would end a participant's
 * phase early and strand them between the phases.
 */
export function poolsShortOfTheStudy(pools: { pre: number; main: number }, counts: { pre: number; main: number } = STUDY_CASE_COUNTS): string[] {
  const short: string[] = [];
  if (pools.pre < counts.pre) {
    short.push(`pools.pre is ${pools.pre}, but every participant judges ${counts.pre} pre-experiment cases (preExperiment.numCases): set pools.pre to at least ${counts.pre}`);
  }
  if (pools.main < counts.main) {
    short.push(`pools.main is ${pools.main}, but every participant judges ${counts.main} main-experiment cases (mainExperiment.numCases): set pools.main to at least ${counts.main}`);
  }
  return short;
}

/** Fewer rows than this left to train the AI model are too few for it (and its cross-validation) to mean anything: the dashboard proposes no setting that leaves fewer. */
export const MIN_TRAINING_ROWS = 100;
