import { Box, Text } from 'ink';
import type { EntitiesResponse } from '../../api/contract.js';
import { ErrorBox } from '../components/ErrorBox.js';
import { Pending } from '../components/Pending.js';
import { TextField } from '../components/TextField.js';
import { cell, truncate, windowStart } from '../format.js';
import type { RequestState } from '../hooks/use-request.js';

/** The entities the picker lists, with the search and type filter they answer. */
export interface PickerData {
  readonly search: string;
  readonly type: string | undefined;
  readonly response: EntitiesResponse;
}

export interface EntityPickerProps {
  readonly query: string;
  readonly searching: boolean;
  readonly request: RequestState<PickerData>;
  readonly selected: number;
  readonly width: number;
  readonly height: number;
}

/** The start of the explorer: the entities whose name or alias contains the query, or the most mentioned ones. */
export function EntityPicker({ query, searching, request, selected, width, height }: EntityPickerProps) {
  const shown = request.data;
  const entities = shown?.response.entities ?? [];
  const listHeight = Math.max(1, height - 3);
  const start = windowStart(entities.length, selected, listHeight);
  const trimmed = query.trim();
  // The title describes the list on screen, which lags the query while the next answer is on its way.
  const title = shown?.search ? `Entities matching "${shown.search}"` : 'Top entities by mentions';
  const nameWidth = Math.max(10, Math.min(36, width - 40));
  return (
    <Box flexDirection="column" height={height} width={width}>
      <TextField label="Find entity:" value={query} focused={searching} placeholder="press / and type a name or alias" />
      <Text bold wrap="truncate-end">
        {title}
        <Text dimColor>{`${shown?.type ? ` · type ${shown.type}` : ''}${shown ? ` · ${shown.response.pagination.total} found` : ''}`}</Text>
      </Text>
      {request.status === 'error' ? <ErrorBox what="Loading entities" error={request.error} retryKey={searching ? 'Ctrl-R' : 'r'} /> : null}
      {request.status === 'loading' ? <Pending label={trimmed ? `Searching for "${trimmed}"` : 'Loading entities'} since={request.since} /> : null}
      {request.status === 'ok' && entities.length === 0 ? (
        <Text dimColor wrap="wrap">
          {shown?.search || shown?.type
            ? 'No entity matches. Try another name, or press t to change the type filter.'
            : 'No entities yet. Save some memories (mem save "Met Sarah Chen from Acme Corp in Berlin") and they appear here.'}
        </Text>
      ) : null}
      {request.status !== 'error'
        ? entities.slice(start, start + listHeight).map((entity, offset) => {
            const index = start + offset;
            const mark = index === selected ? '› ' : '  ';
            const aliases = entity.aliases.length > 0 ? `aka ${entity.aliases.join(', ')}` : '';
            return (
              <Text key={entity.id} wrap="truncate-end" inverse={index === selected}>
                {`${mark}${cell(entity.name, nameWidth)} ${cell(entity.type, 8)} ${String(entity.mentions).padStart(4)} ${truncate(aliases, Math.max(0, width - nameWidth - 18))}`}
              </Text>
            );
          })
        : null}
    </Box>
  );
}
