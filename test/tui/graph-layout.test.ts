import { describe, expect, it } from 'vitest';
import type { GraphResponse } from '../../src/api/contract.js';
import { graphRows, neighbours } from '../../src/tui/graph-layout.js';

const node = (id: string, type: GraphResponse['nodes'][number]['type'] = 'person') => ({ id, name: id.toUpperCase(), type, properties: {}, mentionCount: 1 });
const edge = (source: string, target: string, relationship: string, strength: number) => ({ source, target, relationship, strength });
const graph = (nodes: string[], edges: GraphResponse['edges']): GraphResponse => ({
  success: true,
  nodes: nodes.map((id) => node(id)),
  edges,
  stats: { totalNodes: nodes.length, totalEdges: edges.length, types: {} },
});

const describeRows = (rows: ReturnType<typeof graphRows>) =>
  rows.map((row) => (row.kind === 'heading' ? `# ${row.label}` : `${'  '.repeat(row.hop)}${row.label} ${row.node.name} ${row.strength}${row.also.length ? ` also ${row.also.join(',')}` : ''}`));

describe('graphRows', () => {
  it('groups the direct neighbours by relationship and direction, strongest group and neighbour first', () => {
    const rows = graphRows(
      graph(['c', 'a', 'b', 'd', 'e'], [
        edge('c', 'a', 'WORKS_AT', 0.4),
        edge('c', 'b', 'WORKS_AT', 0.9),
        edge('d', 'c', 'MANAGES', 0.5),
        edge('c', 'e', 'LOCATED_IN', 0.2),
      ]),
      'c',
    );
    expect(describeRows(rows)).toEqual([
      '# WORKS_AT →',
      '  WORKS_AT → B 0.9',
      '  WORKS_AT → A 0.4',
      '# ← MANAGES',
      '  ← MANAGES D 0.5',
      '# LOCATED_IN →',
      '  LOCATED_IN → E 0.2',
    ]);
  });

  it('lists farther entities once, under the parent with the strongest edge, at their shortest distance', () => {
    const rows = graphRows(
      graph(['c', 'a', 'b', 'x', 'y'], [
        edge('c', 'a', 'KNOWS', 0.8),
        edge('c', 'b', 'KNOWS', 0.6),
        edge('a', 'x', 'WORKS_AT', 0.3),
        edge('b', 'x', 'WORKS_AT', 0.7),
        edge('x', 'y', 'LOCATED_IN', 0.5),
        edge('c', 'a', 'MET', 0.2),
      ]),
      'c',
    );
    expect(describeRows(rows)).toEqual([
      '# KNOWS →',
      '  KNOWS → A 0.8 also MET →',
      '  KNOWS → B 0.6',
      '    WORKS_AT → X 0.7',
      '      LOCATED_IN → Y 0.5',
    ]);
    expect(neighbours(rows).map((row) => row.node.id)).toEqual(['a', 'b', 'x', 'y']);
  });

  it('leaves out what the centre cannot reach, and gives nothing for an unknown centre', () => {
    const input = graph(['c', 'a', 'z'], [edge('c', 'a', 'KNOWS', 0.5), edge('z', 'z', 'SELF', 1)]);
    expect(neighbours(graphRows(input, 'c')).map((row) => row.node.id)).toEqual(['a']);
    expect(graphRows(input, 'nope')).toEqual([]);
  });
});
