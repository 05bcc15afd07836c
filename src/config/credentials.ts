import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type Conf from 'conf';
import type { MemPaths } from './paths.js';

/**
 * Where the CLI's API key lives. Order: `MEM_API_KEY` in the environment, then the OS keychain
 * (@napi-rs/keyring, when a secret service answers), then `credentials.json` with mode 0600 in a 0700
 * config directory, written atomically by conf.
 */
export type CredentialSource = 'env' | 'keychain' | 'file';

const SERVICE = 'mem';

interface KeyringEntry {
  getPassword(): string | null | undefined;
  setPassword(value: string): void;
  deletePassword(): boolean;
}

async function keyringEntry(paths: MemPaths): Promise<KeyringEntry | null> {
  if (process.env.MEM_NO_KEYCHAIN === '1') return null;
  try {
    const { Entry } = (await import('@napi-rs/keyring')) as { Entry: new (service: string, account: string) => KeyringEntry };
    // The account name is the config dir, so two MEM_HOMEs never share a key.
    const entry = new Entry(SERVICE, paths.configDir);
    entry.getPassword(); // throws when no secret service is reachable (headless Linux)
    return entry;
  } catch {
    return null;
  }
}

/** conf (and the schema validator it brings) loads only to write, or to report a file it cannot read. */
async function fileStore(paths: MemPaths): Promise<Conf<{ apiKey?: string }>> {
  const { default: Conf } = await import('conf');
  mkdirSync(paths.configDir, { recursive: true, mode: 0o700 });
  chmodSync(paths.configDir, 0o700);
  return new Conf<{ apiKey?: string }>({
    cwd: dirname(paths.credentialsFile),
    configName: basename(paths.credentialsFile, '.json'),
    projectSuffix: '',
    configFileMode: 0o600,
    clearInvalidConfig: false,
  });
}

export interface StoredKey {
  readonly key: string;
  readonly source: CredentialSource;
}

export async function readApiKey(paths: MemPaths, env: NodeJS.ProcessEnv = process.env): Promise<StoredKey | null> {
  const fromEnv = env.MEM_API_KEY?.trim();
  if (fromEnv) return { key: fromEnv, source: 'env' };
  const entry = await keyringEntry(paths);
  const fromKeychain = entry?.getPassword();
  if (fromKeychain) return { key: fromKeychain, source: 'keychain' };
  const stored = readStoredKey(paths);
  const fromFile = stored === undefined ? (await fileStore(paths)).get('apiKey') : stored;
  return typeof fromFile === 'string' && fromFile ? { key: fromFile, source: 'file' } : null;
}

/**
 * The key in the credentials file conf writes (plain JSON), read without loading conf: every command that
 * talks to the daemon reads it. Null when there is no file; undefined when the file holds no key this can
 * read (not JSON, another shape, unreadable): conf then reads it as it always did, with its own outcome.
 */
function readStoredKey(paths: MemPaths): string | null | undefined {
  let text: string;
  try {
    text = readFileSync(paths.credentialsFile, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    const key = parsed && typeof parsed === 'object' ? (parsed as { apiKey?: unknown }).apiKey : undefined;
    return typeof key === 'string' && key ? key : undefined;
  } catch {
    return undefined;
  }
}

/** Stores the key in the keychain when it works, else in the 0600 file; returns where it went. */
export async function writeApiKey(paths: MemPaths, key: string): Promise<Exclude<CredentialSource, 'env'>> {
  const entry = await keyringEntry(paths);
  if (entry) {
    try {
      entry.setPassword(key);
      return 'keychain';
    } catch {
      // fall through to the file
    }
  }
  (await fileStore(paths)).set('apiKey', key);
  return 'file';
}

export async function deleteApiKey(paths: MemPaths): Promise<void> {
  const entry = await keyringEntry(paths);
  try {
    entry?.deletePassword();
  } catch {
    // nothing stored there
  }
  (await fileStore(paths)).delete('apiKey');
}
