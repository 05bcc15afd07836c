import type { LoadStatus } from '../api/contract.js';

const ms = (value: number) => `${Math.round(value)} ms`;

/**
 * `mem status` rows for the daemon's load over its last seconds: what keeps the cores busy, what waits, and
 * per request type the time queued and working (the figures of GET /v1/status `load`).
 */
export function loadRows(load: LoadStatus, topTypes = 6): [string, string][] {
  const workers = Object.entries(load.cpu.workers)
    .map(([name, share]) => `${name.replace(/-worker$/, '')} ${share.toFixed(2)}`)
    .join(', ');
  const lanes = Object.entries(load.lanes)
    .map(([lane, state]) => {
      // Past its own slots a lane runs on slots another lane leaves idle (searches and writes lend them).
      const lent = state.running > state.concurrency ? ` (${state.running - state.concurrency} on lent slots)` : '';
      return `${lane} ${state.running}/${state.concurrency} running${lent}, ${state.queued} waiting${state.rejected ? `, ${state.rejected} refused` : ''}`;
    })
    .join(' · ');
  const rows: [string, string][] = [
    [
      'load',
      `${load.cpu.process.toFixed(2)} cores (main ${load.cpu.main.toFixed(2)}${workers ? `, ${workers}` : ''}, other ${load.cpu.other.toFixed(2)}), event loop delay p99 ${ms(load.eventLoop.delayP99Ms)}, last ${Math.round(load.windowSeconds)} s`,
    ],
    ['queues', lanes],
  ];
  if (load.embedder) {
    const e = load.embedder;
    rows.push([
      'embedder',
      `${e.workers} workers, ${e.textsPerSecond}/s in batches of ${e.meanBatch}, waiting ${e.queued.interactive} interactive + ${e.queued.background} background (queued ${ms(e.queuedMs)}, working ${ms(e.workingMs)} per text)`,
    ]);
  }
  if (load.commits) rows.push(['commits', `${load.commits.perSecond}/s, ${load.commits.rowsPerCommit} rows each, ${ms(load.commits.meanMs)} each`]);
  if (load.vectorSearches) {
    const v = load.vectorSearches;
    rows.push(['vector queries', `${v.queriesPerSecond}/s for ${v.searchesPerSecond} searches/s, searches per vector query ${v.searchesPerQuery}`]);
  }
  if (load.searchTables) {
    const t = load.searchTables;
    const index = t.vectorIndexParts === null ? 'no vector index yet (exact search)' : `vector index in ${t.vectorIndexParts} part${t.vectorIndexParts === 1 ? '' : 's'}`;
    rows.push([
      'search tables',
      `${t.pendingCommits} commit${t.pendingCommits === 1 ? '' : 's'} waiting for a compaction${t.pendingPassages == null ? '' : ` (${t.pendingPassages} new passage${t.pendingPassages === 1 ? '' : 's'} searched in memory)`}, ${t.compactions} compaction${t.compactions === 1 ? '' : 's'} (${Math.round(t.compactingShare * 100)}% of the time), ${index}`,
    ]);
  }
  for (const [index, type] of load.requests.slice(0, topTypes).entries()) {
    rows.push([
      index === 0 ? 'requests' : '',
      `${type.type}: ${type.perSecond}/s, queued p50 ${ms(type.queuedMs.p50)} p99 ${ms(type.queuedMs.p99)}, working p50 ${ms(type.workingMs.p50)} p99 ${ms(type.workingMs.p99)}${type.errors ? `, ${type.errors} errors` : ''}`,
    ]);
  }
  return rows;
}
