import { Box, Text } from 'ink';
import type { Entity } from '../../api/contract.js';
import { ErrorBox } from '../components/ErrorBox.js';
import { shortDate, truncate } from '../format.js';
import { highlightEntities } from '../highlight.js';
import type { RequestState } from '../hooks/use-request.js';
import { theme } from '../theme.js';

/** The fields of a memory the detail pane shows (a search result, a listed memory or a fetched one). */
export interface MemoryItem {
  readonly id: string;
  readonly title: string;
  readonly content: string;
  readonly tags: readonly string[];
  readonly createdAt: string;
  readonly score?: number | undefined;
}

export interface MemoryDetailProps {
  readonly memory: MemoryItem;
  /** The entities extracted from this memory (undefined while they load). */
  readonly entities: readonly Entity[] | undefined;
  readonly entitiesRequest: RequestState<unknown>;
  /** The entity picked to open in the graph explorer, or -1 while the entity row has no focus. */
  readonly selectedEntity: number;
  readonly width: number;
  readonly height: number;
}

/** One memory in full: title, date, tags, its entities, and the content with every mention of them highlighted. */
export function MemoryDetail({ memory, entities, entitiesRequest, selectedEntity, width, height }: MemoryDetailProps) {
  const segments = highlightEntities(memory.content, entities ?? []);
  const selectedId = entities?.[selectedEntity]?.id;
  const meta = [shortDate(memory.createdAt), memory.tags.length > 0 ? `#${memory.tags.join(' #')}` : '', memory.id].filter(Boolean).join(' · ');
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text bold wrap="truncate-end">
        {memory.title || truncate(memory.content, width)}
      </Text>
      <Text dimColor wrap="truncate-end">
        {meta}
      </Text>
      {entitiesRequest.status === 'error' ? (
        <ErrorBox what="Loading entities" error={entitiesRequest.error} />
      ) : (
        <Text wrap="wrap">
          <Text bold>Entities: </Text>
          {entities === undefined ? <Text dimColor>loading…</Text> : null}
          {entities?.length === 0 ? <Text dimColor>none extracted</Text> : null}
          {entities?.map((entity, index) => (
            <Text key={entity.id}>
              {index > 0 ? ' · ' : ''}
              <Text color={theme.entity} bold inverse={index === selectedEntity}>
                {index === selectedEntity ? `›${entity.name}` : entity.name}
              </Text>
              <Text dimColor>{` ${entity.type}`}</Text>
            </Text>
          ))}
        </Text>
      )}
      <Box marginTop={1} flexGrow={1} overflow="hidden">
        <Text wrap="wrap">
          {segments.map((segment, index) =>
            segment.entityId ? (
              <Text key={index} color={theme.entity} bold underline={segment.entityId === selectedId}>
                {/* No line break inside a name: it wraps whole. */}
                {segment.text.replace(/ /g, '\u00a0')}
              </Text>
            ) : (
              <Text key={index}>{segment.text}</Text>
            ),
          )}
        </Text>
      </Box>
    </Box>
  );
}
