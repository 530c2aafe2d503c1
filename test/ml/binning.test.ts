import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { distinctWithCounts, findCategoricalBins, findNumericBins, valueToBin } from '../../worker/ml/binning';
import { binDataset } from '../../worker/ml/train';

/** The plain definition: sort every value, count the runs. */
function sortedRuns(values: Float64Array) {
  const finite = Array.from(values).filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
  const distinct: number[] = [];
  const counts: number[] = [];
  for (const v of finite) {
    if (distinct.length > 0 && distinct[distinct.length - 1] === v) counts[counts.length - 1]!++;
    else (distinct.push(v), counts.push(1));
  }
  return { distinct, counts, nanCount: values.length - finite.length };
}

const column = fc.oneof(
  // Whole numbers in a small span (counted through an array), with missing values and -0.
  fc.array(fc.oneof(fc.integer({ min: -50, max: 300 }), fc.constant(NaN), fc.constant(-0)), { minLength: 1, maxLength: 400 }),
  // Wide or fractional values (counted through a map).
  fc.array(fc.oneof(fc.integer({ min: -1e7, max: 1e7 }), fc.double({ min: -1e3, max: 1e3, noNaN: true }), fc.constant(NaN)), { minLength: 1, maxLength: 400 }),
);

describe('binning', () => {
  it('counts distinct values as sorting and counting runs would', () => {
    fc.assert(
      fc.property(column, (values) => {
        const got = distinctWithCounts(Float64Array.from(values));
        const want = sortedRuns(Float64Array.from(values));
        // -0 and 0 are one value; either may stand for it.
        expect(got.distinct.map((v) => v + 0)).toEqual(want.distinct.map((v) => v + 0));
        expect(got.counts).toEqual(want.counts);
        expect(got.nanCount).toBe(want.nanCount);
      }),
      { numRuns: 300, seed: 11 },
    );
  });

  it('stores every row under the bin its value maps to: by column for splits, and by row, without the most frequent bin of each feature, for histograms', () => {
    fc.assert(
      fc.property(column, column, fc.array(fc.oneof(fc.integer({ min: -2, max: 40 }), fc.constant(NaN)), { minLength: 1, maxLength: 400 }), (a, b, codes) => {
        const n = Math.min(a.length, b.length, codes.length);
        const columns = [a, b, codes].map((c) => Float64Array.from(c.slice(0, n)));
        const data = { featureNames: ['a', 'b', 'c'], categorical: [false, false, true], columns, labels: new Array(n).fill(0) };
        const { layout, columns: byColumn, binCounts, mostFrequent, rows } = binDataset(data, { maxBin: 255, minDataInBin: 3 });
        const bins = layout.bins;
        expect(bins[0]).toEqual(findNumericBins(columns[0]!));
        expect(bins[2]).toEqual(findCategoricalBins(columns[2]!));
        const offsets = [0, bins[0]!.numBins, bins[0]!.numBins + bins[1]!.numBins];
        expect(Array.from(layout.offsets)).toEqual(offsets);
        bins.forEach((featureBins, f) => {
          const counts = new Array<number>(featureBins.numBins).fill(0);
          for (let i = 0; i < n; i++) {
            const bin = valueToBin(featureBins, columns[f]![i]!);
            expect(byColumn[f]![i]).toBe(bin);
            counts[bin]!++;
          }
          // Rows per bin over all rows, and the most frequent bin, the lowest among equals.
          expect(Array.from(binCounts.subarray(layout.offsets[f]!, layout.offsets[f]! + featureBins.numBins))).toEqual(counts);
          expect(mostFrequent[f]).toBe(counts.indexOf(Math.max(...counts)));
        });
        for (let i = 0; i < n; i++) {
          const expected = [0, 1, 2].filter((f) => byColumn[f]![i] !== mostFrequent[f]).map((f) => (offsets[f]! + byColumn[f]![i]!) * 3);
          expect(Array.from(rows.entries.subarray(rows.rowStart[i]!, rows.rowStart[i + 1]!))).toEqual(expected);
        }
      }),
      { numRuns: 150, seed: 12 },
    );
  });
});
