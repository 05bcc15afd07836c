import { Box, Text } from 'ink';
import { cell, strengthBar, windowStart } from '../format.js';
import type { GraphRow, NeighbourRow } from '../graph-layout.js';
import { theme } from '../theme.js';

export interface NeighbourListProps {
  readonly rows: readonly GraphRow[];
  /** The selected neighbour (an index among the neighbour rows, headings skipped). */
  readonly selected: number;
  readonly depth: number;
  readonly typeFilter: string | undefined;
  readonly width: number;
  readonly height: number;
  readonly loading: boolean;
}

const BAR_WIDTH = 13; // strengthBar(): 8 cells, a space, 0.00

function neighbourLine(row: NeighbourRow, selected: boolean, width: number): string {
  const mark = selected ? '› ' : '  ';
  const indent = '  '.repeat(row.hop - 1);
  const via = row.hop > 1 ? `${row.label} ` : '';
  const also = row.also.length > 0 ? ` (also ${row.also.join(', ')})` : '';
  const fixed = mark.length + indent.length + via.length + 1 + BAR_WIDTH;
  const withType = width - fixed - 9 >= 8;
  const nameWidth = Math.max(4, width - fixed - (withType ? 9 : 0));
  return `${mark}${indent}${via}${cell(row.node.name + also, nameWidth)} ${withType ? `${cell(row.node.type, 8)} ` : ''}${strengthBar(row.strength)}`;
}

/** The centre's neighbours, grouped by relationship, strongest first, with the farther hops indented below. */
export function NeighbourList({ rows, selected, depth, typeFilter, width, height, loading }: NeighbourListProps) {
  let counter = -1;
  const indexed = rows.map((row) => ({ row, index: row.kind === 'neighbour' ? ++counter : -1 }));
  const count = counter + 1;
  const listHeight = Math.max(1, height - 1);
  const start = windowStart(indexed.length, Math.max(0, indexed.findIndex((entry) => entry.index === selected)), listHeight);
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text bold wrap="truncate-end">
        {`Neighbours (${count})`}
        <Text dimColor>{` · depth ${depth} · ${typeFilter ? `type ${typeFilter}` : 'all types'}${loading ? ' · loading…' : ''}`}</Text>
      </Text>
      {count === 0 ? (
        <Text dimColor wrap="wrap">
          {typeFilter ? `No ${typeFilter} neighbours within ${depth} hop${depth === 1 ? '' : 's'}; press t for another type.` : 'No relationships to other entities yet.'}
        </Text>
      ) : null}
      {indexed.slice(start, start + listHeight).map(({ row, index }, offset) =>
        row.kind === 'heading' ? (
          <Text key={start + offset} color={theme.heading} bold wrap="truncate-end">
            {row.label}
          </Text>
        ) : (
          <Text key={start + offset} inverse={index === selected} wrap="truncate-end">
            {neighbourLine(row, index === selected, width)}
          </Text>
        ),
      )}
    </Box>
  );
}
