import { Box, Text } from 'ink';
import { useEffect, useLayoutEffect, useRef } from 'react';
import type { AskResponse } from '../../api/contract.js';
import { ErrorBox } from '../components/ErrorBox.js';
import { HelpBar, type KeyHelp } from '../components/HelpBar.js';
import { Pending } from '../components/Pending.js';
import { TextField } from '../components/TextField.js';
import { describeError, type ErrorInfo } from '../error-info.js';
import { truncate, windowStart } from '../format.js';
import type { CentreRef } from '../graph-data.js';
import { useKeys } from '../hooks/use-keys.js';
import { useModel } from '../hooks/use-model.js';
import { useRequest } from '../hooks/use-request.js';
import { entitiesOf, loadEntityIndex } from '../memory-entities.js';
import { editText, typedAndSubmitted } from '../text-edit.js';
import type { TuiClient } from '../tui-client.js';
import { MemoryDetail } from './MemoryDetail.js';
import { theme } from '../theme.js';

export interface AskViewProps {
  readonly client: TuiClient;
  readonly active: boolean;
  readonly width: number;
  readonly height: number;
  readonly onTyping: (typing: boolean) => void;
  readonly onOpenEntity: (ref: CentreRef) => void;
}

/** One question and what has come back so far. */
interface Answer {
  readonly question: string;
  readonly status: 'streaming' | 'done' | 'error' | 'stopped';
  readonly text: string;
  readonly since: number;
  readonly response?: AskResponse | undefined;
  readonly error?: ErrorInfo | undefined;
}

const MEMORY_LIMIT = 10;

/** What the keys change: where they go, the question and its answer, the source (and its entity) chosen. */
interface AskModel {
  readonly focus: 'input' | 'sources' | 'source' | 'entities';
  readonly question: string;
  readonly answer: Answer | undefined;
  readonly sourceIndex: number;
  readonly entityIndex: number;
  /** The source memory open in full. */
  readonly openId: string | undefined;
}

/**
 * Ask: the answer streams in as the daemon writes it, then the memories it cites; each source opens in
 * full (entities highlighted, Enter on one opens it in the graph explorer).
 */
export function AskView({ client, active, width, height, onTyping, onOpenEntity }: AskViewProps) {
  const [model, update, get] = useModel<AskModel>(() => ({
    focus: 'input',
    question: '',
    answer: undefined,
    sourceIndex: 0,
    entityIndex: 0,
    openId: undefined,
  }));
  const { focus, question, answer, sourceIndex, entityIndex, openId } = model;
  // Each question gets a number; events of a question asked before the current one are dropped.
  const generation = useRef(0);

  useLayoutEffect(() => {
    if (active) onTyping(focus === 'input');
  }, [active, focus, onTyping]);
  useEffect(
    () => () => {
      generation.current += 1;
    },
    [],
  );
  const change = (patch: Partial<AskModel> | ((current: AskModel) => Partial<AskModel>)) => {
    update(patch);
    if (active) onTyping(get().focus === 'input');
  };
  const changeAnswer = (patch: (current: Answer) => Partial<Answer>) =>
    update((current) => (current.answer ? { answer: { ...current.answer, ...patch(current.answer) } } : {}));

  const source = useRequest(openId ? () => client.getMemory(openId) : undefined, [openId]);
  const index = useRequest(openId ? () => loadEntityIndex(client) : undefined, [openId]);
  // Kept answers belong to the source opened before until the new one arrives.
  const memory = source.data?.data.id === openId ? source.data?.data : undefined;
  const entities = memory && index.data ? entitiesOf(index.data, memory.id) : undefined;
  const sources = answer?.response?.sources ?? [];

  const ask = async (text: string) => {
    const mine = ++generation.current;
    change({ answer: { question: text, status: 'streaming', text: '', since: Date.now() }, sourceIndex: 0, openId: undefined, focus: 'sources' });
    try {
      for await (const event of client.askStream({ query: text, limit: MEMORY_LIMIT })) {
        if (generation.current !== mine) return;
        if (event.type === 'delta') changeAnswer((current) => ({ text: current.text + event.text }));
        else changeAnswer(() => ({ status: 'done', text: event.response.answer, response: event.response }));
      }
    } catch (error) {
      if (generation.current === mine) changeAnswer(() => ({ status: 'error', error: describeError(error) }));
    }
  };
  const stop = () => {
    generation.current += 1;
    changeAnswer((current) => (current.status === 'streaming' ? { status: 'stopped' } : {}));
  };

  useKeys(
    (input, key) => {
      const now = get();
      const shown = now.answer?.response?.sources ?? [];
      if (now.focus === 'input') {
        const submitted = typedAndSubmitted(now.question, input, key);
        if (submitted !== undefined) {
          change({ question: submitted });
          if (submitted.trim()) void ask(submitted.trim());
          return;
        }
        const edited = editText(now.question, input, key);
        if (edited !== undefined) change({ question: edited });
        else if (key.return && now.question.trim()) void ask(now.question.trim());
        else if (key.escape) change({ focus: 'sources' });
        return;
      }
      if (now.focus === 'entities') {
        const count = entities?.length ?? 0;
        if (key.leftArrow || key.upArrow) change({ entityIndex: Math.max(0, now.entityIndex - 1) });
        else if (key.rightArrow || key.downArrow) change({ entityIndex: Math.max(0, Math.min(count - 1, now.entityIndex + 1)) });
        else if (key.return) {
          const entity = entities?.[now.entityIndex];
          if (entity) onOpenEntity({ key: entity.id, name: entity.name, entity });
        } else if (key.escape || key.backspace || key.delete) change({ focus: 'source' });
        return;
      }
      if (now.focus === 'source') {
        if (key.escape || key.backspace || key.delete || key.leftArrow) change({ openId: undefined, focus: 'sources' });
        else if (input === 'r') {
          if (source.status !== 'ok') source.retry();
          else index.retry();
        } else if ((key.return || key.rightArrow) && entities && entities.length > 0) change({ focus: 'entities', entityIndex: 0 });
        return;
      }
      // The answer and its sources.
      // "/" starts a new question on an empty field; "i" edits the last one.
      if (input === '/') change({ focus: 'input', question: '' });
      else if (input === 'i') change({ focus: 'input' });
      else if (key.escape && now.answer?.status === 'streaming') stop();
      else if (input === 'r' && now.answer && now.answer.status !== 'streaming') void ask(now.answer.question);
      else if (key.upArrow || input === 'k') change({ sourceIndex: Math.max(0, now.sourceIndex - 1) });
      else if (key.downArrow || input === 'j') change({ sourceIndex: Math.max(0, Math.min(shown.length - 1, now.sourceIndex + 1)) });
      else if (key.return || key.rightArrow) {
        const chosen = shown[now.sourceIndex];
        if (chosen) change({ openId: chosen.id, focus: 'source' });
      }
    },
    active,
  );

  const help: KeyHelp[] =
    focus === 'input'
      ? [['type', 'question'], ['⏎', 'ask'], ['Esc', 'stop typing'], ['Tab', 'view'], ['^C', 'quit']]
      : focus === 'sources'
        ? [['↑↓', 'source'], ['⏎', 'open'], ['/', 'new question'], ['i', 'edit'], answer?.status === 'streaming' ? ['Esc', 'stop'] : ['r', 'ask again'], ['Tab', 'view'], ['q', 'quit']]
        : focus === 'source'
          ? [['⏎', 'entities'], ['Esc', 'back to answer'], ['r', 'retry'], ['Tab', 'view'], ['q', 'quit']]
          : [['←→', 'entity'], ['⏎', 'open in graph'], ['Esc', 'back'], ['Tab', 'view'], ['q', 'quit']];

  const bodyHeight = Math.max(3, height - 2);
  let body;
  if ((focus === 'source' || focus === 'entities') && openId) {
    body =
      source.status === 'error' ? (
        <ErrorBox what="Opening the memory" error={source.error} />
      ) : memory ? (
        <MemoryDetail
          memory={memory}
          entities={entities}
          entitiesRequest={index}
          selectedEntity={focus === 'entities' ? entityIndex : -1}
          width={width}
          height={bodyHeight}
        />
      ) : (
        <Pending label="Opening the memory" since={source.status === 'loading' ? source.since : Date.now()} />
      );
  } else if (!answer) {
    body = (
      <Text dimColor wrap="wrap">
        Ask a question in your own words; the answer comes only from your memories, and streams in as it is written.
      </Text>
    );
  } else {
    const sourceRows = Math.min(sources.length, Math.max(1, Math.floor(bodyHeight / 3)));
    const start = windowStart(sources.length, sourceIndex, sourceRows);
    const response = answer.response;
    body = (
      <Box flexDirection="column" height={bodyHeight}>
        <Text dimColor wrap="truncate-end">{`Q: ${answer.question}`}</Text>
        {answer.status === 'streaming' && answer.text === '' ? <Pending label="Thinking" since={answer.since} slowHint="press Esc to stop" /> : null}
        <Box flexGrow={1} flexShrink={1} overflow="hidden">
          <Text wrap="wrap">
            {answer.text}
            {answer.status === 'streaming' && answer.text !== '' ? <Text color={theme.accent}>▍</Text> : null}
          </Text>
        </Box>
        {answer.status === 'error' && answer.error ? <ErrorBox what="Asking" error={answer.error} /> : null}
        {answer.status === 'stopped' ? <Text dimColor>Stopped. Press r to ask again.</Text> : null}
        {response?.noResult && response.suggestion ? <Text dimColor wrap="wrap">{response.suggestion}</Text> : null}
        {response ? (
          <Text dimColor wrap="truncate-end">{`confidence ${response.confidence.toFixed(2)} · ${response.model} · ${response.tokensUsed} tokens`}</Text>
        ) : null}
        {sources.length > 0 ? (
          <Box flexDirection="column" flexShrink={0}>
            <Text bold>{`Sources (${sources.length})`}</Text>
            {sources.slice(start, start + sourceRows).map((item, offset) => {
              const index = start + offset;
              const isSelected = index === sourceIndex && focus === 'sources';
              return (
                <Text key={item.id} inverse={isSelected} wrap="truncate-end">
                  {`${isSelected ? '›' : ' '} [${index + 1}] ${truncate(item.title, Math.max(8, width - 40))}  `}
                  <Text dimColor>{item.id}</Text>
                </Text>
              );
            })}
          </Box>
        ) : null}
      </Box>
    );
  }
  return (
    <Box flexDirection="column" width={width} height={height}>
      <TextField label="Ask:" value={question} focused={focus === 'input'} placeholder="press / and type a question" />
      <Box flexGrow={1} flexDirection="column" overflow="hidden">
        {body}
      </Box>
      <HelpBar keys={help} />
    </Box>
  );
}
