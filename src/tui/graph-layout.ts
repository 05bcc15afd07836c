import type { GraphResponse } from '../api/contract.js';

export type GraphNode = GraphResponse['nodes'][number];

/** A heading over the neighbours reached by one relationship, in one direction, from the centre. */
export interface RelationshipHeading {
  readonly kind: 'heading';
  readonly label: string;
}

/** One neighbour: reached from `parentId` (the centre at hop 1) by its strongest edge. */
export interface NeighbourRow {
  readonly kind: 'neighbour';
  readonly node: GraphNode;
  readonly parentId: string;
  readonly hop: number;
  /** The edge from the parent, as read from the parent: `WORKS_AT →` (parent is the source) or `← WORKS_AT`. */
  readonly label: string;
  readonly strength: number;
  /** Hop 1 only: the other relationships between the centre and this neighbour. */
  readonly also: readonly string[];
}

export type GraphRow = RelationshipHeading | NeighbourRow;

interface Link {
  readonly other: string;
  readonly label: string;
  readonly strength: number;
}

const outgoing = (relationship: string) => `${relationship} →`;
const incoming = (relationship: string) => `← ${relationship}`;

/**
 * The graph around `centreId` as the explorer lists it: the direct neighbours grouped under their strongest
 * relationship with the centre (strongest group first), and under each neighbour, indented, the entities
 * first reached through it at the next hop. Breadth-first, so every entity appears once, at its shortest
 * distance, under the parent with the strongest edge to it. Nodes the centre cannot reach are left out.
 */
export function graphRows(graph: GraphResponse, centreId: string): GraphRow[] {
  const nodes = new Map(graph.nodes.map((node) => [node.id, node]));
  if (!nodes.has(centreId)) return [];
  const links = new Map<string, Link[]>();
  const link = (from: string, entry: Link) => links.set(from, [...(links.get(from) ?? []), entry]);
  for (const edge of graph.edges) {
    if (edge.source === edge.target) continue;
    link(edge.source, { other: edge.target, label: outgoing(edge.relationship), strength: edge.strength });
    link(edge.target, { other: edge.source, label: incoming(edge.relationship), strength: edge.strength });
  }

  const hops = new Map([[centreId, 0]]);
  const reachedBy = new Map<string, { parentId: string; link: Link }>();
  let frontier = [centreId];
  while (frontier.length > 0) {
    const best = new Map<string, { parentId: string; link: Link }>();
    for (const id of frontier) {
      for (const entry of links.get(id) ?? []) {
        if (hops.has(entry.other) || !nodes.has(entry.other)) continue;
        const current = best.get(entry.other);
        if (!current || entry.strength > current.link.strength) best.set(entry.other, { parentId: id, link: entry });
      }
    }
    for (const [id, reach] of best) {
      hops.set(id, (hops.get(reach.parentId) ?? 0) + 1);
      reachedBy.set(id, reach);
    }
    frontier = [...best.keys()];
  }

  const children = new Map<string, string[]>();
  for (const [id, { parentId }] of reachedBy) children.set(parentId, [...(children.get(parentId) ?? []), id]);
  const strength = (id: string) => reachedBy.get(id)?.link.strength ?? 0;
  const name = (id: string) => nodes.get(id)?.name ?? id;
  const byStrength = (a: string, b: string) => strength(b) - strength(a) || name(a).localeCompare(name(b));

  const rows: GraphRow[] = [];
  const add = (id: string) => {
    const node = nodes.get(id);
    const reach = reachedBy.get(id);
    if (!node || !reach) return;
    const hop = hops.get(id) ?? 1;
    const also =
      hop === 1
        ? [...new Set((links.get(centreId) ?? []).filter((entry) => entry.other === id && entry.label !== reach.link.label).map((entry) => entry.label))]
        : [];
    rows.push({ kind: 'neighbour', node, parentId: reach.parentId, hop, label: reach.link.label, strength: reach.link.strength, also });
    for (const child of (children.get(id) ?? []).sort(byStrength)) add(child);
  };

  const groups = new Map<string, string[]>();
  for (const id of (children.get(centreId) ?? []).sort(byStrength)) {
    const label = reachedBy.get(id)?.link.label ?? '';
    groups.set(label, [...(groups.get(label) ?? []), id]);
  }
  // Groups keep the order of their strongest member, since members were added strongest first.
  for (const [label, ids] of groups) {
    rows.push({ kind: 'heading', label });
    for (const id of ids) add(id);
  }
  return rows;
}

/** The neighbour rows alone, in display order: what the selection moves over. */
export function neighbours(rows: readonly GraphRow[]): NeighbourRow[] {
  return rows.filter((row): row is NeighbourRow => row.kind === 'neighbour');
}
