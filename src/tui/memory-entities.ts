import type { Entity } from '../api/contract.js';
import type { TuiClient } from './tui-client.js';

/** Most entities one request may return: the daemon's page limit. */
const INDEX_LIMIT = 1000;

/**
 * The entities to match memories against. The API has no "entities of a memory" route, but every entity
 * lists the memories that mention it, so one page of the most recently seen entities answers it for the
 * memories on screen (those saved long ago with entities not seen since may show none).
 */
export async function loadEntityIndex(client: TuiClient): Promise<readonly Entity[]> {
  return (await client.entities({ limit: INDEX_LIMIT, sortBy: 'recent' })).entities;
}

/** The entities extracted from one memory, most mentioned first. */
export function entitiesOf(index: readonly Entity[], memoryId: string): Entity[] {
  return index.filter((entity) => entity.relatedDocuments.includes(memoryId)).sort((a, b) => b.mentions - a.mentions || a.name.localeCompare(b.name));
}
