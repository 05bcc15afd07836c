import type { Command } from 'commander';
import { MemError } from '../../errors.js';
import { choiceOption, daemonOption } from '../completion-values.js';
import { clientFor } from '../context.js';

const VIEW_NAMES = ['graph', 'memories', 'ask'] as const;

export function registerTuiCommand(program: Command): void {
  program
    .command('tui')
    .description('Explore your memories full-screen: the knowledge graph, live search, and answers as they stream')
    .addOption(daemonOption('-e, --entity <name>', 'open the graph explorer on this entity (name, alias or id)', 'entities'))
    .addOption(choiceOption('--view <view>', 'start in this view', VIEW_NAMES, 'graph'))
    .addHelpText(
      'after',
      `
Views (Tab / Shift-Tab, or g, m, a): Graph explorer, Memories (live search), Ask (streamed answers).
Keys: / search · ↑↓ select · Enter open or centre · Backspace back · 1 2 3 graph depth · t entity type
      r retry · Esc leave a text field · q or Ctrl-C quit. The help bar lists the keys of each screen.
Needs an interactive terminal (stdin and stdout a TTY); scripts use entities, graph, search and ask --json.

Examples:
  $ mem tui
  $ mem tui --entity "Sarah Chen"
  $ mem tui --view ask --start`,
    )
    .action(async (options: { entity?: string; view: string }, command: Command) => {
      if (!process.stdout.isTTY || !process.stdin.isTTY) {
        throw new MemError('VALIDATION_ERROR', 'mem tui needs an interactive terminal: stdin and stdout must be a TTY.', {
          hint: 'Run it in a terminal. In scripts use `mem entities`, `mem graph`, `mem search` or `mem ask` with --json.',
        });
      }
      if (!(VIEW_NAMES as readonly string[]).includes(options.view)) {
        throw new MemError('VALIDATION_ERROR', `--view must be one of ${VIEW_NAMES.join(', ')} (got "${options.view}").`);
      }
      const { client } = await clientFor(command);
      // Ink renders nothing live when it thinks it runs in CI (a CI variable, read once at import); this is an
      // interactive terminal by the check above, so that guess is wrong here.
      for (const name of Object.keys(process.env)) {
        if (name === 'CI' || name === 'CONTINUOUS_INTEGRATION' || name.startsWith('CI_')) delete process.env[name];
      }
      // Ink and React load here, for this command only: every other command starts without them.
      const { runTui } = await import('../../tui/run-tui.js');
      await runTui(client, { address: client.baseUrl, entity: options.entity, view: options.view as (typeof VIEW_NAMES)[number] });
      // A request still in flight to a slow daemon must not keep the process alive after the user quit.
      process.exit(0);
    });
}
