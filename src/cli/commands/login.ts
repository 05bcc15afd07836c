import type { Command } from 'commander';
import { MemError } from '../../errors.js';
import { readSecret } from '../confirm.js';
import { configFor, outputFor } from '../context.js';
import { style } from '../output.js';

const KEY_FORMAT = /^svc_(live|test)_[0-9A-Za-z]{32,}$/;

export function registerLoginCommands(program: Command): void {
  program
    .command('login')
    .description('Store the API key the CLI uses (checked against the daemon first)')
    .option('--with-key', 'read the key from standard input (for scripts)')
    .addHelpText(
      'after',
      '\nThe key goes to the OS keychain when one works, else to a 0600 file in the config directory.\nMEM_API_KEY, when set, takes precedence over the stored key.\n\nExamples:\n  $ mem login\n  $ echo "$KEY" | mem login --with-key',
    )
    .action(async (_options: unknown, command: Command) => {
      const output = outputFor(command);
      const loaded = await configFor(command);
      const key = await readSecret('API key: ');
      if (!KEY_FORMAT.test(key)) {
        throw new MemError('VALIDATION_ERROR', 'That does not look like a mem API key (svc_live_... or svc_test_...).');
      }
      const [{ resolveDaemonUrl }, { writeApiKey }, { MemClient }] = await Promise.all([
        import('../../client/discovery.js'),
        import('../../config/credentials.js'),
        import('../../client/http-client.js'),
      ]);
      const client = new MemClient({ baseUrl: resolveDaemonUrl(loaded).url, apiKey: key, timeoutMs: loaded.config['client.timeoutMs'] });
      const { profile } = await client.profile();
      const where = await writeApiKey(loaded.paths, key);
      output.result({ loggedIn: true, user: profile.id, email: profile.email, tier: profile.tier, store: where }, () =>
        `${style.green('Logged in')} as ${profile.name}${profile.email ? ` <${profile.email}>` : ''} (${profile.tier}); key stored in the ${where === 'file' ? 'credentials file (mode 0600)' : 'OS keychain'}.`,
      );
      if (process.env.MEM_API_KEY) output.info(style.yellow('Note: MEM_API_KEY is set and takes precedence over the stored key.'));
    });

  program
    .command('logout')
    .description('Forget the API key the CLI stored')
    .addHelpText('after', '\nExamples:\n  $ mem logout')
    .action(async (_options: unknown, command: Command) => {
      const output = outputFor(command);
      const loaded = await configFor(command);
      const { deleteApiKey, readApiKey } = await import('../../config/credentials.js');
      const stored = await readApiKey(loaded.paths, { ...process.env, MEM_API_KEY: '' });
      await deleteApiKey(loaded.paths);
      output.result({ loggedOut: Boolean(stored) }, () =>
        stored ? `${style.green('Logged out')}: the stored key was removed (the key itself still works; delete it with \`mem keys delete\`).` : 'No key was stored.',
      );
      if (process.env.MEM_API_KEY) output.info(style.yellow('Note: MEM_API_KEY is still set in this environment.'));
    });
}
