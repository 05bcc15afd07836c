/**
 * Creates a blob container in an Azurite already running on 127.0.0.1 (the README's deployment trial):
 *
 *   npx tsx test/helpers/azurite-container.ts <port> <container>
 */
import { AZURITE_ACCOUNT, createContainer } from './azurite.js';

const [port, name] = process.argv.slice(2);
if (!port || !name || !/^\d+$/.test(port)) {
  process.stderr.write('usage: npx tsx test/helpers/azurite-container.ts <port> <container>\n');
  process.exit(2);
}
await createContainer(`http://127.0.0.1:${port}/${AZURITE_ACCOUNT}`, name);
process.stdout.write(`container ${name} is ready on http://127.0.0.1:${port}\n`);
