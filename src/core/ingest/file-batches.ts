/**
 * A first scan's files go to WatchedFileSaver.saveFiles in batches: one lookup of the batch's paths, and the
 * new files of each piece created together (one embedding call, one commit per table, one knowledge batch),
 * as text items are. A batch holds its files' extracted texts until its piece is created, so it is bounded
 * by the bytes of its files as well as by their number.
 */

/**
 * Files a batch holds at most: as many as a text job's batch (TEXT_BATCH in ingest-service.ts), for the same
 * reason (each lookup and commit is shared by more files); measured against 32 in bench/README.md, issue #23,
 * "A folder's first scan in batches of 128".
 */
export const FILE_BATCH = 128;
/**
 * Bytes of files a batch holds at most (one file larger than this goes alone). Notes of a few kilobytes go
 * 128 at a time; files of a megabyte or more, 32 or fewer, as every batch did before the bound in bytes.
 */
export const FILE_BATCH_BYTES = 32 * 1024 * 1024;
/** A file whose size was not listed (a job recorded before sizes were): 32 of them fill a batch, as before. */
export const UNKNOWN_FILE_BYTES = FILE_BATCH_BYTES / 32;

/**
 * Consecutive batches of `indices`, in order: each as long as it can be without passing `FILE_BATCH` files
 * or `FILE_BATCH_BYTES` bytes (`sizeOf`: a file's bytes, undefined when unknown), and never empty.
 */
export function fileBatches(indices: readonly number[], sizeOf: (index: number) => number | undefined): number[][] {
  const batches: number[][] = [];
  let batch: number[] = [];
  let bytes = 0;
  for (const index of indices) {
    const size = sizeOf(index);
    const cost = size !== undefined && Number.isFinite(size) && size >= 0 ? size : UNKNOWN_FILE_BYTES;
    if (batch.length > 0 && (batch.length >= FILE_BATCH || bytes + cost > FILE_BATCH_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(index);
    bytes += cost;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
