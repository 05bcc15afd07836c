/*
 * What a command needs to reach the daemon, imported by context.ts as one module so that the bundle puts it
 * in one chunk: a short command pays Node's module loader for every file it reads.
 */
export { MemClient } from '../client/http-client.js';
export { resolveDaemonUrl } from '../client/discovery.js';
export { loadClientSettings } from '../config/client-settings.js';
export { readApiKey } from '../config/credentials.js';
