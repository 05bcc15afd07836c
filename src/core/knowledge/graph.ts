import type { EntityType } from '../../providers/spec.js';
import type { EdgeRecord, EntityRecord, KnowledgeStore } from './types.js';

export interface GraphRequest {
  /** Name, alias or id of the entity to start from; without it, the most mentioned entities. */
  readonly entity?: string | undefined;
  /** Only nodes of this type (the starting entity is always kept). */
  readonly type?: EntityType | undefined;
  readonly depth: number;
  /** Most nodes. */
  readonly limit: number;
}

export interface GraphNode {
  readonly id: string;
  readonly name: string;
  readonly type: EntityType;
  readonly properties: Readonly<Record<string, string | number | boolean>>;
  readonly mentionCount: number;
}

export interface GraphEdge {
  readonly source: string;
  readonly target: string;
  readonly relationship: string;
  readonly strength: number;
}

export interface Graph {
  readonly nodes: GraphNode[];
  readonly edges: GraphEdge[];
  readonly stats: { readonly totalNodes: number; readonly totalEdges: number; readonly types: Record<string, number> };
}

const node = (entity: EntityRecord): GraphNode => ({
  id: entity.id,
  name: entity.name,
  type: entity.type,
  properties: entity.properties,
  mentionCount: entity.mentions,
});

/**
 * Breadth-first from the seeds, one ring per depth level; within a ring the neighbours reached by the
 * strongest edges come first, so when `limit` cuts the graph it keeps the strongest neighbourhood.
 * `seeds` null means no entity was asked for (start from the most mentioned); an empty array means the
 * entity asked for is unknown (an empty graph).
 */
export async function buildGraph(store: KnowledgeStore, request: GraphRequest, seeds: EntityRecord[] | null): Promise<Graph> {
  const limit = Math.max(1, request.limit);
  const chosen = new Map<string, EntityRecord>();
  if (seeds === null) {
    for (const entity of await store.topEntities(limit, request.type)) chosen.set(entity.id, entity);
  } else {
    const seed = seeds[0];
    if (!seed) return { nodes: [], edges: [], stats: { totalNodes: 0, totalEdges: 0, types: {} } };
    chosen.set(seed.id, seed);
    let frontier = [seed.id];
    for (let level = 0; level < request.depth && frontier.length > 0 && chosen.size < limit; level++) {
      const touching = await store.edgesTouching(frontier);
      // Each new neighbour by its strongest edge into what is already chosen.
      const reach = new Map<string, number>();
      for (const edge of touching) {
        for (const [from, to] of [
          [edge.sourceId, edge.targetId],
          [edge.targetId, edge.sourceId],
        ] as const) {
          if (chosen.has(from) && !chosen.has(to)) reach.set(to, Math.max(reach.get(to) ?? 0, edge.strength));
        }
      }
      const ranked = [...reach.entries()].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
      const entities = new Map((await store.entitiesByIds(ranked.map(([id]) => id))).map((entity) => [entity.id, entity]));
      const next: string[] = [];
      for (const [id] of ranked) {
        if (chosen.size >= limit) break;
        const entity = entities.get(id);
        if (!entity || (request.type !== undefined && entity.type !== request.type)) continue;
        chosen.set(id, entity);
        next.push(id);
      }
      frontier = next;
    }
  }
  const ids = [...chosen.keys()];
  const edges: EdgeRecord[] = ids.length > 1 ? await store.edgesTouching(ids, true) : [];
  const nodes = [...chosen.values()].map(node);
  const types: Record<string, number> = {};
  for (const entry of nodes) types[entry.type] = (types[entry.type] ?? 0) + 1;
  const graphEdges = edges
    .sort((a, b) => b.strength - a.strength || (a.id < b.id ? -1 : 1))
    .map((edge) => ({ source: edge.sourceId, target: edge.targetId, relationship: edge.relationship, strength: edge.strength }));
  return { nodes, edges: graphEdges, stats: { totalNodes: nodes.length, totalEdges: graphEdges.length, types } };
}
