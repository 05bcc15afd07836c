import { render } from 'ink';
import { App } from './App.js';
import type { TuiClient } from './tui-client.js';
import type { ViewName } from './view-names.js';

export interface RunTuiOptions {
  readonly address?: string | undefined;
  readonly entity?: string | undefined;
  readonly view?: ViewName | undefined;
  readonly stdin?: NodeJS.ReadStream;
  readonly stdout?: NodeJS.WriteStream;
}

/** Switch to the terminal's alternate screen (the shell's screen comes back untouched on exit). */
const ENTER_ALTERNATE_SCREEN = '\u001b[?1049h\u001b[H';
const LEAVE_ALTERNATE_SCREEN = '\u001b[?25h\u001b[?1049l';

/**
 * Runs the TUI full-screen until the user quits (q or Ctrl-C), then gives the terminal back as it was:
 * the alternate screen left, the cursor shown, raw mode off. Only `mem tui` loads this module, so no other
 * command pays for Ink and React.
 */
export async function runTui(client: TuiClient, options: RunTuiOptions = {}): Promise<void> {
  const stdout = options.stdout ?? process.stdout;
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    stdout.write(LEAVE_ALTERNATE_SCREEN);
  };
  // Whatever ends the process (a signal, an uncaught error), the shell gets its screen back.
  process.once('exit', restore);
  stdout.write(ENTER_ALTERNATE_SCREEN);
  try {
    const instance = render(<App client={client} address={options.address} initialEntity={options.entity} initialView={options.view} />, {
      stdout,
      stdin: options.stdin ?? process.stdin,
      exitOnCtrlC: true,
    });
    await instance.waitUntilExit();
  } finally {
    restore();
    process.off('exit', restore);
  }
}
