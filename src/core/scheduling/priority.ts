import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * How urgent a piece of work is. Requests a person or an agent waits on are `interactive`; bulk work nobody
 * waits on item by item (ingest jobs, folder scans, imports, reindexing, enrichment) is `background`, and
 * the shared resources (the embedding workers) serve interactive work first.
 */
export type WorkPriority = 'interactive' | 'background';

const current = new AsyncLocalStorage<WorkPriority>();

/**
 * Runs `work` as background work: everything it starts, however deep (a save, its embedding, its
 * extraction), inherits the priority without each layer passing it on, so the job runners only wrap.
 */
export function inBackground<T>(work: () => Promise<T>): Promise<T> {
  return current.run('background', work);
}

/** The priority of the work running now; interactive unless an enclosing `inBackground` says otherwise. */
export function currentPriority(): WorkPriority {
  return current.getStore() ?? 'interactive';
}
