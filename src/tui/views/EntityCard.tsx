import { Box, Text } from 'ink';
import { plural, shortDate, truncate } from '../format.js';
import type { CentreData } from '../graph-data.js';
import { theme } from '../theme.js';

/** The centre of the explorer: the entity's type, aliases, mentions, first and last seen, and its facts. */
export function EntityCard({ data, width, height }: { data: CentreData; width: number; height: number }) {
  const { entity, node } = data;
  const name = entity?.name ?? node?.name ?? data.ref.name;
  const type = entity?.type ?? node?.type ?? '';
  const mentions = entity?.mentions ?? node?.mentionCount ?? 0;
  const lines: { text: string; dim?: boolean }[] = [];
  lines.push({ text: `${type} · ${plural(mentions, 'mention')}` });
  if (entity && entity.aliases.length > 0) lines.push({ text: `aka ${entity.aliases.join(', ')}` });
  if (entity) lines.push({ text: `seen ${shortDate(entity.firstSeen)} → ${shortDate(entity.lastSeen)}`, dim: true });
  if (entity) {
    const count = entity.relatedDocuments.length;
    lines.push({ text: `in ${count} ${count === 1 ? 'memory' : 'memories'}`, dim: true });
  }
  // The name, a blank line and the Facts title take three lines; a cut list ends with "… n more".
  const room = Math.max(0, height - lines.length - 3);
  const shown = data.facts.slice(0, data.factsTotal > room ? Math.max(0, room - 1) : room);
  const more = data.factsTotal - shown.length;
  return (
    <Box flexDirection="column" width={width} height={height} paddingRight={1} overflow="hidden">
      <Text bold color={theme.accent} wrap="truncate-end">
        {name}
      </Text>
      {lines.map((line, index) => (
        <Text key={index} dimColor={line.dim} wrap="truncate-end">
          {line.text}
        </Text>
      ))}
      <Text> </Text>
      <Text bold wrap="truncate-end">{`Facts (${data.factsTotal})`}</Text>
      {data.facts.length === 0 ? <Text dimColor>No facts about it yet.</Text> : null}
      {shown.map((fact) => (
        <Text key={fact.id} wrap="truncate-end">
          <Text dimColor>{`${fact.confidence.toFixed(2)} `}</Text>
          {truncate(fact.statement, Math.max(4, width - 6))}
        </Text>
      ))}
      {more > 0 && data.facts.length > 0 ? (
        <Text dimColor wrap="truncate-end">{`… ${more} more (mem facts --entity "${truncate(name, 30)}")`}</Text>
      ) : null}
    </Box>
  );
}
