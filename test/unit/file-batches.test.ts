import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FILE_BATCH, FILE_BATCH_BYTES, UNKNOWN_FILE_BYTES, fileBatches } from '../../src/core/ingest/file-batches.js';

const bytesOf = (sizes: readonly (number | undefined)[], batch: readonly number[]) => batch.reduce((sum, index) => sum + (sizes[index] ?? UNKNOWN_FILE_BYTES), 0);

describe('a first scan\'s file batches', () => {
  it('puts 128 notes of a few kilobytes in a batch, and files of a megabyte 32 at a time', () => {
    const notes = Array.from({ length: 300 }, () => 4096);
    expect(fileBatches(notes.map((_, index) => index), (index) => notes[index]).map((batch) => batch.length)).toEqual([128, 128, 44]);
    const large = Array.from({ length: 70 }, () => 1024 * 1024);
    expect(fileBatches(large.map((_, index) => index), (index) => large[index]).map((batch) => batch.length)).toEqual([32, 32, 6]);
  });

  it('counts a file of unknown size (a job recorded before sizes) so that 32 of them fill a batch, as before', () => {
    const indices = Array.from({ length: 70 }, (_, index) => index);
    expect(fileBatches(indices, () => undefined).map((batch) => batch.length)).toEqual([32, 32, 6]);
  });

  it('sends a file larger than the bound alone, and keeps the indices it is given', () => {
    const sizes = [10, FILE_BATCH_BYTES * 3, 10, 10];
    expect(fileBatches([7, 8, 9, 10], (index) => sizes[index - 7])).toEqual([[7], [8], [9, 10]]);
    expect(fileBatches([], () => 1)).toEqual([]);
  });

  it('keeps every file once, in order, each batch within both bounds and as long as they allow', () => {
    const size = fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 4 * 1024 }), fc.integer({ min: 0, max: 2 * FILE_BATCH_BYTES }));
    fc.assert(
      fc.property(fc.array(size, { maxLength: 600 }), (sizes) => {
        const indices = sizes.map((_, index) => index);
        const batches = fileBatches(indices, (index) => sizes[index]);
        expect(batches.flat()).toEqual(indices);
        batches.forEach((batch, at) => {
          expect(batch.length).toBeGreaterThan(0);
          expect(batch.length).toBeLessThanOrEqual(FILE_BATCH);
          if (batch.length > 1) expect(bytesOf(sizes, batch)).toBeLessThanOrEqual(FILE_BATCH_BYTES);
          const next = batches[at + 1]?.[0];
          // Greedy: the next batch's first file did not fit in this one.
          if (next !== undefined) expect(batch.length === FILE_BATCH || bytesOf(sizes, [...batch, next]) > FILE_BATCH_BYTES).toBe(true);
        });
      }),
    );
  });
});
