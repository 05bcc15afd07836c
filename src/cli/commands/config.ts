import type { Command } from 'commander';

/** The actions, with the config schema (zod) they read: loaded when one runs, never to register or for --help. */
const actions = () => import('./config-actions.js');

export function registerConfigCommands(program: Command): void {
  const config = program
    .command('config')
    .description('Show and change settings: each value with its origin (default, file, env, flag)')
    .addHelpText(
      'after',
      `
Settings come from defaults < the config file < MEM_* environment variables < command-line flags.
\`set\` and \`unset\` change the config file (<config dir>/config.json).

Examples:
  $ mem config list
  $ mem config get server.port
  $ mem config set embedding.provider ollama
  $ mem config unset embedding.provider`,
    );

  config
    .command('list', { isDefault: true })
    .description('Every key with its effective value and where it comes from')
    .addHelpText('after', '\nExamples:\n  $ mem config list\n  $ mem config list --json')
    .action(async (options: unknown, command: Command) => (await actions()).listConfig(options, command));

  config
    .command('get')
    .description("Print one key's effective value")
    .argument('<key>', 'a dotted key, e.g. server.port')
    .addHelpText('after', '\nExamples:\n  $ mem config get server.port\n  $ mem config get embedding.provider --json')
    .action(async (key: string, options: unknown, command: Command) => (await actions()).getConfig(key, options, command));

  config
    .command('set')
    .description('Write a value to the config file (checked against the key\'s type first)')
    .argument('<key>', 'a dotted key, e.g. server.port')
    .argument('<value>', 'the new value; numbers and true/false are parsed')
    .addHelpText('after', '\nExamples:\n  $ mem config set server.port 7400\n  $ mem config set client.autoStart true\n  $ mem config set ollama.host http://gpu-box:11434')
    .action(async (key: string, raw: string, options: unknown, command: Command) => (await actions()).setConfig(key, raw, options, command));

  config
    .command('unset')
    .description('Remove a key from the config file (back to its default, or its environment variable)')
    .argument('<key>', 'a dotted key, e.g. server.port')
    .addHelpText('after', '\nExamples:\n  $ mem config unset server.port')
    .action(async (key: string, options: unknown, command: Command) => (await actions()).unsetConfig(key, options, command));
}
