import { Box, Text } from 'ink';
import { useEffect, useLayoutEffect, useState } from 'react';
import { ErrorBox } from '../components/ErrorBox.js';
import { HelpBar, type KeyHelp } from '../components/HelpBar.js';
import { Pending } from '../components/Pending.js';
import { TextField } from '../components/TextField.js';
import { shortDate, truncate, windowStart } from '../format.js';
import type { CentreRef } from '../graph-data.js';
import { useDebounced } from '../hooks/use-debounced.js';
import { useKeys } from '../hooks/use-keys.js';
import { useModel } from '../hooks/use-model.js';
import { useRequest } from '../hooks/use-request.js';
import { entitiesOf, loadEntityIndex } from '../memory-entities.js';
import { editText } from '../text-edit.js';
import type { TuiClient } from '../tui-client.js';
import { MemoryDetail, type MemoryItem } from './MemoryDetail.js';

export interface MemoriesViewProps {
  readonly client: TuiClient;
  readonly active: boolean;
  readonly width: number;
  readonly height: number;
  readonly debounceMs: number;
  readonly onTyping: (typing: boolean) => void;
  readonly onOpenEntity: (ref: CentreRef) => void;
}

const RESULT_LIMIT = 30;

/** What the keys change: where they go (the search box, the list, the entities of the memory), the query, the selection. */
interface MemoriesModel {
  readonly focus: 'input' | 'results' | 'entities';
  readonly query: string;
  readonly selected: number;
  readonly entityIndex: number;
}

interface Results {
  readonly query: string;
  readonly items: readonly MemoryItem[];
  readonly total: number;
}

async function loadResults(client: TuiClient, query: string): Promise<Results> {
  if (!query) {
    const response = await client.listMemories({ limit: RESULT_LIMIT });
    return { query, items: response.data, total: response.pagination.total };
  }
  // Every result ranked (threshold 0) with keywords fused in: while typing, a partial word should still find.
  const response = await client.search({ query, limit: RESULT_LIMIT, threshold: 0, hybrid: true });
  return { query, items: response.results, total: response.pagination.total };
}

/**
 * Memories: live search (debounced) with the newest memories while the box is empty; the selected memory
 * in full beside the list, its entities highlighted, each one a key press away from the graph explorer.
 */
export function MemoriesView({ client, active, width, height, debounceMs, onTyping, onOpenEntity }: MemoriesViewProps) {
  const [opened, setOpened] = useState(active);
  const [model, update, get] = useModel<MemoriesModel>(() => ({ focus: 'input', query: '', selected: 0, entityIndex: 0 }));
  const { focus, query } = model;
  const search = useDebounced(query.trim(), debounceMs);

  useEffect(() => {
    if (active) setOpened(true);
  }, [active]);
  useLayoutEffect(() => {
    if (active) onTyping(focus === 'input');
  }, [active, focus, onTyping]);
  const change = (patch: Partial<MemoriesModel>) => {
    update(patch);
    if (active) onTyping(get().focus === 'input');
  };

  const results = useRequest(opened ? () => loadResults(client, search) : undefined, [opened, search]);
  const items = results.data?.items ?? [];
  const index = useRequest(opened && items.length > 0 ? () => loadEntityIndex(client) : undefined, [opened, items.map((item) => item.id).join(',')]);
  const listHeight = Math.max(1, height - 3);
  const entitiesAt = (position: number) => {
    const memory = items[position];
    return memory && index.data ? entitiesOf(index.data, memory.id) : undefined;
  };
  const clamp = (value: number, count: number) => Math.max(0, Math.min(count - 1, value));
  // r asks again for what is not on screen yet: the results first, then the entities of the memories.
  const retry = () => (results.status !== 'ok' ? results.retry() : index.retry());

  useKeys(
    (input, key) => {
      const now = get();
      const current = clamp(now.selected, items.length);
      const entities = entitiesAt(current);
      const move = (to: number) => change({ selected: clamp(to, items.length), entityIndex: 0 });
      if (now.focus === 'entities') {
        const count = entities?.length ?? 0;
        if (key.leftArrow || key.upArrow) change({ entityIndex: clamp(now.entityIndex - 1, count) });
        else if (key.rightArrow || key.downArrow) change({ entityIndex: clamp(now.entityIndex + 1, count) });
        else if (key.return) {
          const entity = entities?.[now.entityIndex];
          if (entity) onOpenEntity({ key: entity.id, name: entity.name, entity });
        } else if (key.escape || key.backspace || key.delete) change({ focus: 'results' });
        else if (input === 'r') retry();
        return;
      }
      if (now.focus === 'input') {
        // The view opens typing already; a "/" pressed out of habit (it starts a search everywhere else) on
        // an empty query is that habit, not the query's first character.
        if (input === '/' && now.query === '') return;
        const edited = editText(now.query, input, key);
        if (edited !== undefined) {
          change({ query: edited, selected: 0, entityIndex: 0 });
          return;
        }
        if (key.ctrl && input === 'r') retry();
        else if (key.escape || (key.return && items.length > 0)) change({ focus: 'results' });
      } else {
        if (input === '/' || input === 'i') change({ focus: 'input' });
        else if (input === 'j') move(current + 1);
        else if (input === 'k') move(current - 1);
        else if (input === 'r') retry();
        else if ((key.return || key.rightArrow) && entities && entities.length > 0) change({ focus: 'entities', entityIndex: 0 });
      }
      if (key.upArrow) move(current - 1);
      else if (key.downArrow) move(current + 1);
      else if (key.pageUp) move(current - listHeight);
      else if (key.pageDown) move(current + listHeight);
    },
    active,
  );
  const current = clamp(model.selected, items.length);
  const memory = items[current];
  const entities = entitiesAt(current);
  const entityIndex = model.entityIndex;

  const help: KeyHelp[] =
    focus === 'input'
      ? [['type', 'search'], ['↑↓', 'select'], ['⏎', 'results'], ['Esc', 'stop typing'], ['^R', 'retry'], ['Tab', 'view'], ['^C', 'quit']]
      : focus === 'results'
        ? [['↑↓', 'select'], ['⏎', 'entities'], ['/', 'search'], ['r', 'retry'], ['Tab', 'view'], ['q', 'quit']]
        : [['←→', 'entity'], ['⏎', 'open in graph'], ['Esc', 'back'], ['Tab', 'view'], ['q', 'quit']];

  const listWidth = Math.max(24, Math.min(48, Math.floor(width * 0.4)));
  const start = windowStart(items.length, current, listHeight);
  const shown = results.data;
  const heading = !shown ? '' : shown.query ? `${shown.total} result${shown.total === 1 ? '' : 's'} for "${truncate(shown.query, 40)}"` : `Newest memories (${shown.total})`;
  return (
    <Box flexDirection="column" width={width} height={height}>
      <TextField label="Search:" value={query} focused={focus === 'input'} placeholder="press / and type: results appear as you type" />
      <Box flexShrink={0}>
        {results.status === 'loading' ? (
          <Pending label={search ? `Searching "${truncate(search, 30)}"` : 'Loading memories'} since={results.since} />
        ) : (
          <Text bold wrap="truncate-end">
            {heading}
          </Text>
        )}
      </Box>
      <Box flexGrow={1} flexDirection="row" overflow="hidden">
        {results.status === 'error' ? (
          <ErrorBox what={search ? 'Search' : 'Loading memories'} error={results.error} retryKey={focus === 'input' ? 'Ctrl-R' : 'r'} />
        ) : (
          <>
            <Box flexDirection="column" width={listWidth} flexShrink={0} paddingRight={1}>
              {shown && items.length === 0 ? (
                <Text dimColor wrap="wrap">
                  {shown.query ? 'No memory matches.' : 'No memories yet: save one with mem save "..."'}
                </Text>
              ) : null}
              {items.slice(start, start + listHeight).map((item, offset) => {
                const isSelected = start + offset === current;
                const lead = item.score !== undefined ? item.score.toFixed(2) : shortDate(item.createdAt).slice(5);
                return (
                  <Text key={item.id} inverse={isSelected} wrap="truncate-end">
                    {`${isSelected ? '›' : ' '} ${lead} ${truncate(item.title || item.content, listWidth - lead.length - 4)}`}
                  </Text>
                );
              })}
            </Box>
            {memory ? (
              <Box borderStyle="single" borderTop={false} borderBottom={false} borderRight={false} paddingLeft={1} flexGrow={1}>
                <MemoryDetail
                  memory={memory}
                  entities={entities}
                  entitiesRequest={index}
                  selectedEntity={focus === 'entities' ? entityIndex : -1}
                  width={Math.max(10, width - listWidth - 2)}
                  height={listHeight}
                />
              </Box>
            ) : null}
          </>
        )}
      </Box>
      <HelpBar keys={help} />
    </Box>
  );
}
