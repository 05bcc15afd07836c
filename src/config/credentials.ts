import { chmodSync, mkdirSync } from 'node:fs';
import Conf from 'conf';
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

function fileStore(paths: MemPaths): Conf<{ apiKey?: string }> {
  mkdirSync(paths.configDir, { recursive: true, mode: 0o700 });
  chmodSync(paths.configDir, 0o700);
  return new Conf<{ apiKey?: string }>({
    cwd: paths.configDir,
    configName: 'credentials',
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
  const fromFile = fileStore(paths).get('apiKey');
  return fromFile ? { key: fromFile, source: 'file' } : null;
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
  fileStore(paths).set('apiKey', key);
  return 'file';
}

export async function deleteApiKey(paths: MemPaths): Promise<void> {
  const entry = await keyringEntry(paths);
  try {
    entry?.deletePassword();
  } catch {
    // nothing stored there
  }
  fileStore(paths).delete('apiKey');
}
