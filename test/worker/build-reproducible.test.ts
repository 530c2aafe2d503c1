/**
 * The same definition builds the same model wherever it is built (issue #44 point 7): the dataset
 * the vitest configuration built in Node (test/helpers/runtime-build.ts) is built again here in
 * workerd, as the dashboard builds an added dataset, and the two model files are compared byte for
 * byte: every split, leaf value and report figure the same.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { runtimeBuiltModel } from '../helpers/runtime-build';

describe('a build in workerd and in Node', () => {
  it('writes the same model file, byte for byte', () => {
    const nodeBuilt = (env as unknown as { NODE_BUILT_MODEL: string }).NODE_BUILT_MODEL;
    expect(nodeBuilt.length).toBeGreaterThan(10_000);
    const workerdBuilt = runtimeBuiltModel();
    if (workerdBuilt !== nodeBuilt) {
      // Where they part: the first differing character and what surrounds it.
      let at = 0;
      while (at < nodeBuilt.length && nodeBuilt[at] === workerdBuilt[at]) at++;
      expect(workerdBuilt.slice(Math.max(0, at - 200), at + 100)).toBe(nodeBuilt.slice(Math.max(0, at - 200), at + 100));
    }
    expect(workerdBuilt).toBe(nodeBuilt);
  });
});
