import { Box, Text } from 'ink';
import { useEffect, useLayoutEffect, useState } from 'react';
import { ENTITY_TYPES } from '../../api/contract.js';
import { ErrorBox } from '../components/ErrorBox.js';
import { HelpBar, type KeyHelp } from '../components/HelpBar.js';
import { Pending } from '../components/Pending.js';
import { truncate } from '../format.js';
import { loadCentre, type CentreRef, type EntityType } from '../graph-data.js';
import { neighbours } from '../graph-layout.js';
import { useDebounced } from '../hooks/use-debounced.js';
import { useKeys } from '../hooks/use-keys.js';
import { useModel } from '../hooks/use-model.js';
import { useRequest } from '../hooks/use-request.js';
import { editText } from '../text-edit.js';
import type { TuiClient } from '../tui-client.js';
import { EntityCard } from './EntityCard.js';
import { EntityPicker, type PickerData } from './EntityPicker.js';
import { NeighbourList } from './NeighbourList.js';

export interface GraphViewProps {
  readonly client: TuiClient;
  readonly active: boolean;
  readonly width: number;
  readonly height: number;
  readonly debounceMs: number;
  /** Tells the app, as soon as it changes, whether keys go into a text field (then q, g, m, a are text, not commands). */
  readonly onTyping: (typing: boolean) => void;
  /** Start on this entity (name, alias or id) instead of the picker. */
  readonly initialEntity?: string | undefined;
  /** An entity another view asked to open; a new `nonce` opens it again. */
  readonly open?: { readonly ref: CentreRef; readonly nonce: number } | undefined;
}

/** What the keys change: the centre and its history, the picker, the selection, depth and type filter. */
interface GraphModel {
  readonly centre: CentreRef | undefined;
  readonly history: readonly CentreRef[];
  readonly mode: 'pick' | 'explore';
  readonly searching: boolean;
  readonly query: string;
  readonly pickIndex: number;
  readonly selected: number;
  readonly depth: number;
  readonly typeFilter: EntityType | undefined;
}

const TYPE_CYCLE: readonly (EntityType | undefined)[] = [undefined, ...ENTITY_TYPES];
const PICKER_LIMIT = 100;

/**
 * The graph explorer: pick an entity (typing to search, or from the most mentioned), then walk the graph
 * one entity at a time. The history of centres is a stack: Enter pushes, Backspace pops.
 */
export function GraphView({ client, active, width, height, debounceMs, onTyping, initialEntity, open }: GraphViewProps) {
  const [opened, setOpened] = useState(active);
  const [model, update, get] = useModel<GraphModel>(() => ({
    centre: initialEntity ? { key: initialEntity, name: initialEntity } : undefined,
    history: [],
    mode: initialEntity ? 'explore' : 'pick',
    searching: false,
    query: '',
    pickIndex: 0,
    selected: 0,
    depth: 1,
    typeFilter: undefined,
  }));
  const { centre, history, mode, searching, query, depth, typeFilter } = model;
  const search = useDebounced(query.trim(), debounceMs);
  const typing = mode === 'pick' && searching;

  useEffect(() => {
    if (active) setOpened(true);
  }, [active]);
  useLayoutEffect(() => {
    if (active) onTyping(typing);
  }, [active, typing, onTyping]);
  /** Every change from a key also tells the app at once whether keys now go into the text field. */
  const change = (patch: Partial<GraphModel> | ((current: GraphModel) => Partial<GraphModel>)) => {
    update(patch);
    const next = get();
    if (active) onTyping(next.mode === 'pick' && next.searching);
  };

  const picker = useRequest<PickerData>(
    opened && mode === 'pick'
      ? async () => ({
          search,
          type: typeFilter,
          response: await client.entities({ search: search || undefined, type: typeFilter, sortBy: 'mentions', limit: PICKER_LIMIT }),
        })
      : undefined,
    [opened, mode, search, typeFilter],
  );
  const explorer = useRequest(opened && centre ? () => loadCentre(client, centre, depth, typeFilter) : undefined, [opened, centre, depth, typeFilter]);

  const go = (ref: CentreRef) =>
    change((current) => ({
      history: current.centre && current.centre.key !== ref.key ? [...current.history, current.centre] : current.history,
      centre: ref,
      mode: 'explore',
      searching: false,
      selected: 0,
    }));
  const back = () =>
    change((current) => {
      const previous = current.history.at(-1);
      return previous ? { history: current.history.slice(0, -1), centre: previous, selected: 0 } : { mode: 'pick' };
    });
  useLayoutEffect(() => {
    if (open) go(open.ref);
    // Only a new request to open an entity navigates.
  }, [open?.nonce]);

  const cycleType = (step: number) =>
    change((current) => {
      const index = TYPE_CYCLE.indexOf(current.typeFilter);
      return { typeFilter: TYPE_CYCLE[(index + step + TYPE_CYCLE.length) % TYPE_CYCLE.length], selected: 0, pickIndex: 0 };
    });

  const data = explorer.data && explorer.data.ref === centre ? explorer.data : undefined;
  const list = data ? neighbours(data.rows) : [];
  const entities = picker.data?.response.entities ?? [];
  const page = Math.max(1, height - 6);
  const clamp = (value: number, count: number) => Math.max(0, Math.min(count - 1, value));

  useKeys(
    (input, key) => {
      const now = get();
      if (now.mode === 'pick') {
        const pick = clamp(now.pickIndex, entities.length);
        const moveTo = (index: number) => change({ pickIndex: clamp(index, entities.length) });
        if (now.searching) {
          const edited = editText(now.query, input, key);
          if (edited !== undefined) {
            change({ query: edited, pickIndex: 0 });
            return;
          }
          if (key.ctrl && input === 'r') picker.retry();
        }
        if (key.upArrow) moveTo(pick - 1);
        else if (key.downArrow) moveTo(pick + 1);
        else if (key.pageUp) moveTo(pick - page);
        else if (key.pageDown) moveTo(pick + page);
        else if (key.return) {
          const entity = entities[pick];
          if (entity) go({ key: entity.id, name: entity.name, entity });
        } else if (key.escape) {
          if (now.searching) change({ searching: false });
          else if (now.centre) change({ mode: 'explore' });
        } else if (!now.searching) {
          if (input === '/') change({ searching: true });
          else if (input === 'j') moveTo(pick + 1);
          else if (input === 'k') moveTo(pick - 1);
          else if (input === 't') cycleType(1);
          else if (input === 'T') cycleType(-1);
          else if (input === 'r') picker.retry();
          else if ((key.backspace || key.delete) && now.centre) change({ mode: 'explore' });
        }
        return;
      }
      const current = clamp(now.selected, list.length);
      const moveTo = (index: number) => change({ selected: clamp(index, list.length) });
      if (key.upArrow || input === 'k') moveTo(current - 1);
      else if (key.downArrow || input === 'j') moveTo(current + 1);
      else if (key.pageUp) moveTo(current - page);
      else if (key.pageDown) moveTo(current + page);
      else if (key.return || key.rightArrow) {
        const row = list[current];
        if (row) go({ key: row.node.id, name: row.node.name });
      } else if (key.backspace || key.delete || key.leftArrow) back();
      else if (input === '1' || input === '2' || input === '3') change({ depth: Number(input) });
      else if (input === 't') cycleType(1);
      else if (input === 'T') cycleType(-1);
      else if (input === 'r') explorer.retry();
      else if (input === '/') change({ mode: 'pick', searching: true });
      else if (key.escape) change({ mode: 'pick' });
    },
    active,
  );
  const current = clamp(model.selected, list.length);
  const pickCurrent = clamp(model.pickIndex, entities.length);

  const bodyHeight = Math.max(3, height - 2);
  const help: KeyHelp[] =
    mode === 'pick'
      ? searching
        ? [['type', 'search'], ['↑↓', 'select'], ['⏎', 'explore'], ['Esc', 'stop typing'], ['^R', 'retry'], ['Tab', 'view'], ['^C', 'quit']]
        : [['/', 'search'], ['↑↓', 'select'], ['⏎', 'explore'], ['t', 'type'], ['r', 'retry'], ['Tab', 'view'], ['q', 'quit']]
      : [['↑↓', 'move'], ['⏎', 'centre'], ['⌫', 'back'], ['1-3', 'depth'], ['t', 'type'], ['/', 'find'], ['r', 'retry'], ['Tab', 'view'], ['q', 'quit']];

  let body;
  if (mode === 'pick') {
    body = <EntityPicker query={query} searching={searching} request={picker} selected={pickCurrent} width={width} height={bodyHeight + 1} />;
  } else {
    const cardWidth = Math.max(28, Math.min(50, Math.floor(width * 0.42)));
    const trail = history.slice(-4).map((ref) => truncate(ref.name, 18));
    body = (
      <Box flexDirection="column" height={bodyHeight + 1}>
        <Text dimColor wrap="truncate-start">
          {trail.length > 0 ? `back: ${trail.reverse().join(' ◂ ')}` : 'Graph explorer'}
        </Text>
        {explorer.status === 'error' ? (
          <ErrorBox what={`Loading ${truncate(centre?.name ?? '', 40)}`} error={explorer.error} />
        ) : data && !data.node ? (
          <Text wrap="wrap">{`No entity called "${data.ref.name}". Press / to search, or ⌫ to go back.`}</Text>
        ) : data ? (
          <Box flexDirection="row" height={bodyHeight}>
            <EntityCard data={data} width={cardWidth} height={bodyHeight} />
            <Box borderStyle="single" borderTop={false} borderBottom={false} borderRight={false} paddingLeft={1} flexGrow={1}>
              <NeighbourList
                rows={data.rows}
                selected={current}
                depth={data.depth}
                typeFilter={data.type}
                width={Math.max(10, width - cardWidth - 2)}
                height={bodyHeight}
                loading={explorer.status === 'loading' || data.depth !== depth || data.type !== typeFilter}
              />
            </Box>
          </Box>
        ) : centre ? (
          // Also the render between a move and the request it starts: never a blank screen.
          <Pending label={`Loading ${truncate(centre.name, 40)}`} since={explorer.status === 'loading' ? explorer.since : Date.now()} />
        ) : null}
      </Box>
    );
  }
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Box flexGrow={1} flexDirection="column" overflow="hidden">
        {body}
      </Box>
      <HelpBar keys={help} />
    </Box>
  );
}
