import { Box, Text, useApp } from 'ink';
import { useCallback, useRef, useState } from 'react';
import { Guard } from './components/Guard.js';
import { Header } from './components/Header.js';
import type { CentreRef } from './graph-data.js';
import { useKeys } from './hooks/use-keys.js';
import { useTerminalSize } from './hooks/use-terminal-size.js';
import { nextView, VIEWS, type ViewName } from './view-names.js';
import { AskView } from './views/AskView.js';
import { GraphView } from './views/GraphView.js';
import { MemoriesView } from './views/MemoriesView.js';
import type { TuiClient } from './tui-client.js';

export interface AppProps {
  readonly client: TuiClient;
  /** The daemon's address, shown in the header. */
  readonly address?: string | undefined;
  /** Open the graph explorer on this entity (name, alias or id). */
  readonly initialEntity?: string | undefined;
  readonly initialView?: ViewName | undefined;
  /** Pause in typing after which live search asks the daemon. */
  readonly debounceMs?: number | undefined;
}

/** Smallest screen the layout is drawn for; a smaller one shows a message instead. */
const MIN_COLUMNS = 60;
const MIN_ROWS = 12;

/**
 * `mem tui`: the header, the three views (all mounted, so each keeps its state while hidden) and the keys
 * that work everywhere: Tab / Shift-Tab and g, m, a switch views; q quits unless a text field has the keys.
 */
export function App({ client, address, initialEntity, initialView, debounceMs = 200 }: AppProps) {
  const { exit } = useApp();
  const size = useTerminalSize();
  const [view, setView] = useState<ViewName>(initialView ?? 'graph');
  // Set by the views as each key changes their focus, so the next key of the same read is judged right.
  const typing = useRef(false);
  const onTyping = useCallback((value: boolean) => {
    typing.current = value;
  }, []);
  const [open, setOpen] = useState<{ ref: CentreRef; nonce: number } | undefined>(undefined);

  const openEntity = useCallback((ref: CentreRef) => {
    setOpen((previous) => ({ ref, nonce: (previous?.nonce ?? 0) + 1 }));
    setView('graph');
  }, []);

  const tooSmall = size.columns < MIN_COLUMNS || size.rows < MIN_ROWS;
  useKeys((input, key) => {
    if (key.tab) {
      setView((current) => nextView(current, key.shift ? -1 : 1));
      return;
    }
    if (key.ctrl || key.meta || (typing.current && !tooSmall)) return;
    if (input === 'q') exit();
    const jump = VIEWS.find((entry) => entry.key === input);
    if (jump) setView(jump.name);
  }, true);

  // The views stay mounted while the terminal is too small, so nothing is lost when it grows again.
  const columns = Math.max(MIN_COLUMNS, size.columns);
  // One row short of the screen: a frame as tall as the terminal makes Ink clear the screen on every update.
  const rows = Math.max(MIN_ROWS, size.rows) - 1;
  const bodyHeight = rows - 1;
  const common = { client, width: columns, height: bodyHeight, onTyping };
  const shows = (name: ViewName) => view === name && !tooSmall;
  return (
    <>
      {tooSmall ? (
        <Box width={size.columns} flexDirection="column">
          <Text wrap="wrap">{`mem tui needs a terminal of at least ${MIN_COLUMNS}x${MIN_ROWS} (this one is ${size.columns}x${size.rows}).`}</Text>
          <Text wrap="wrap">Make it larger, or press q to quit.</Text>
        </Box>
      ) : null}
      <Box flexDirection="column" width={columns} height={rows} display={tooSmall ? 'none' : 'flex'}>
        <Header view={view} address={address} width={columns} />
        <Box display={shows('graph') ? 'flex' : 'none'} height={bodyHeight}>
          <Guard active={shows('graph')}>
            <GraphView {...common} active={shows('graph')} debounceMs={debounceMs} initialEntity={initialEntity} open={open} />
          </Guard>
        </Box>
        <Box display={shows('memories') ? 'flex' : 'none'} height={bodyHeight}>
          <Guard active={shows('memories')}>
            <MemoriesView {...common} active={shows('memories')} debounceMs={debounceMs} onOpenEntity={openEntity} />
          </Guard>
        </Box>
        <Box display={shows('ask') ? 'flex' : 'none'} height={bodyHeight}>
          <Guard active={shows('ask')}>
            <AskView {...common} active={shows('ask')} onOpenEntity={openEntity} />
          </Guard>
        </Box>
      </Box>
    </>
  );
}
