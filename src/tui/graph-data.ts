import type { ENTITY_TYPES, Entity, Fact, GraphResponse } from '../api/contract.js';
import { graphRows, type GraphNode, type GraphRow } from './graph-layout.js';
import type { TuiClient } from './tui-client.js';

export type EntityType = (typeof ENTITY_TYPES)[number];

/** An entity to centre the explorer on: an id or a name (the daemon resolves names and aliases), and what to call it meanwhile. */
export interface CentreRef {
  readonly key: string;
  readonly name: string;
  /** The whole entity when the picker already has it (saves a lookup). */
  readonly entity?: Entity | undefined;
}

/** Everything the explorer shows about its centre. `node` is undefined when the daemon knows no such entity. */
export interface CentreData {
  readonly ref: CentreRef;
  readonly depth: number;
  readonly type: EntityType | undefined;
  readonly node?: GraphNode | undefined;
  readonly entity?: Entity | undefined;
  readonly facts: readonly Fact[];
  readonly factsTotal: number;
  readonly graph: GraphResponse;
  readonly rows: readonly GraphRow[];
}

/** Most nodes one explorer screen asks for; the daemon keeps the strongest neighbourhood when it cuts. */
const NODE_LIMIT = 60;
const FACT_LIMIT = 30;

/**
 * The centre's graph (breadth-first to `depth`), its facts, and its entity record (aliases, first and last
 * seen), which the graph does not carry: looked up by name and matched by id.
 */
export async function loadCentre(client: TuiClient, ref: CentreRef, depth: number, type: EntityType | undefined): Promise<CentreData> {
  const [graph, facts] = await Promise.all([
    client.graph({ entity: ref.key, depth, type, limit: NODE_LIMIT }),
    client.facts({ entity: ref.key, limit: FACT_LIMIT }),
  ]);
  // The daemon lists the starting entity first.
  const node = graph.nodes.find((candidate) => candidate.id === ref.key) ?? graph.nodes[0];
  let entity = node && ref.entity?.id === node.id ? ref.entity : undefined;
  if (node && !entity) {
    const found = await client.entities({ search: node.name.slice(0, 200), type: node.type, limit: 50 });
    entity = found.entities.find((candidate) => candidate.id === node.id);
  }
  return {
    ref,
    depth,
    type,
    node,
    entity,
    facts: facts.facts,
    factsTotal: facts.pagination.total,
    graph,
    rows: node ? graphRows(graph, node.id) : [],
  };
}
