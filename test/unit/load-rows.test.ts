import { describe, expect, it } from 'vitest';
import type { LoadStatus } from '../../src/api/contract.js';
import { loadRows } from '../../src/cli/load-rows.js';

const idle = { running: 0, queued: 0, concurrency: 1, maxQueued: 1, admitted: 0, rejected: 0 };
const LOAD: LoadStatus = {
  windowSeconds: 10,
  eventLoop: { delayP50Ms: 1, delayP99Ms: 2, delayMaxMs: 3, utilization: 0.1 },
  cpu: { process: 0.5, main: 0.2, workers: {}, other: 0.3 },
  lanes: { read: idle, search: idle, write: idle, bulk: idle },
  requests: [],
  embedder: null,
  commits: null,
  vectorSearches: null,
  searchTables: null,
};
const row = (load: LoadStatus) => loadRows(load).find(([name]) => name === 'search tables')?.[1];

describe('mem status: the search tables row', () => {
  it('shows the commits waiting, the passages searched in memory, the compactions and the vector index parts', () => {
    expect(row(LOAD)).toBeUndefined();
    expect(row({ ...LOAD, searchTables: { pendingCommits: 12, compactions: 1, compactingShare: 0.18, vectorIndexParts: 7 } })).toBe(
      '12 commits waiting for a compaction, 1 compaction (18% of the time), vector index in 7 parts',
    );
    expect(row({ ...LOAD, searchTables: { pendingCommits: 0, compactions: 0, compactingShare: 0, vectorIndexParts: 1, pendingPassages: 1 } })).toBe(
      '0 commits waiting for a compaction (1 new passage searched in memory), 0 compactions (0% of the time), vector index in 1 part',
    );
    expect(row({ ...LOAD, searchTables: { pendingCommits: 1, compactions: 0, compactingShare: 0, vectorIndexParts: null, pendingPassages: 3 } })).toBe(
      '1 commit waiting for a compaction (3 new passages searched in memory), 0 compactions (0% of the time), no vector index yet (exact search)',
    );
  });
});
