import { MemError } from '../errors.js';

/**
 * Where the data lives: a local directory (one daemon, the default) or an object store that several daemons
 * share. LanceDB reads each cloud's standard variables itself (AZURE_STORAGE_ACCOUNT_NAME/_KEY,
 * AWS_ACCESS_KEY_ID/..., GOOGLE_SERVICE_ACCOUNT...); `options` adds or overrides them from config.
 */
export interface StorageLocation {
  readonly uri: string;
  /** An object store: other daemons may write it, so reads refresh and background work takes leases. */
  readonly shared: boolean;
  readonly scheme: 'file' | 'az' | 's3' | 'gs';
  /** LanceDB storageOptions (may hold credentials: never log them). */
  readonly options: Readonly<Record<string, string>>;
  /** The URI without anything that could be a credential (user info, query string), for logs and doctor. */
  readonly display: string;
}

const OBJECT_STORE_SCHEMES: Readonly<Record<string, StorageLocation['scheme']>> = {
  az: 'az',
  abfs: 'az',
  abfss: 'az',
  s3: 's3',
  s3a: 's3',
  gs: 'gs',
};

export function storageLocation(uri: string, options: Readonly<Record<string, string>> = {}): StorageLocation {
  const match = /^([a-z][a-z0-9+.-]*):\/\//i.exec(uri);
  if (!match) return { uri, shared: false, scheme: 'file', options: {}, display: uri };
  const name = (match[1] as string).toLowerCase();
  if (name === 'file') return { uri, shared: false, scheme: 'file', options: {}, display: uri };
  const scheme = OBJECT_STORE_SCHEMES[name];
  if (!scheme) {
    throw new MemError('VALIDATION_ERROR', `storage.uri ${redactUri(uri)} uses an unsupported scheme "${name}://".`, {
      hint: 'Use a local directory, az://container/path, s3://bucket/path or gs://bucket/path.',
    });
  }
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    throw new MemError('VALIDATION_ERROR', `storage.uri ${redactUri(uri)} is not a valid URI.`, {
      hint: `Write it as ${scheme}://<container or bucket>/<path>.`,
    });
  }
  if (!parsed.hostname) {
    throw new MemError('VALIDATION_ERROR', `storage.uri ${redactUri(uri)} names no container or bucket.`, {
      hint: `Write it as ${scheme}://<container or bucket>/<path>.`,
    });
  }
  return { uri, shared: true, scheme, options, display: redactUri(uri) };
}

/** Drops user info and the query string (SAS tokens, keys) from a URI. */
export function redactUri(uri: string): string {
  return uri.replace(/\/\/[^/@]*@/, '//').replace(/\?.*$/, '');
}
