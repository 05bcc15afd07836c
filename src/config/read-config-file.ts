import { readFileSync } from 'node:fs';
import { MemError } from '../errors.js';

/** The config file is a flat JSON object of dotted keys, e.g. {"embedding.provider": "ollama"}. */
export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    if (code === 'ENOTDIR') {
      throw new MemError('VALIDATION_ERROR', `Cannot read the config file ${path}: part of that path is a file, not a directory.`, {
        hint: 'Point MEM_HOME at a directory (it is created if missing), or unset it to use the default paths.',
      });
    }
    if (code === 'EACCES' || code === 'EPERM' || code === 'EISDIR') {
      throw new MemError('VALIDATION_ERROR', `Cannot read the config file ${path} (${code}).`, {
        hint: `Make ${path} a file you can read, or delete it.`,
      });
    }
    throw error;
  }
  // A JSON object is all this checks, by hand: each value is checked with its key's schema by loadConfig,
  // and the CLI's way to the daemon (client-settings.ts) reads this file without loading zod.
  const parsed = safeJson(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new MemError('VALIDATION_ERROR', `Config file ${path} is not a JSON object.`, {
      hint: `Fix or delete ${path}.`,
    });
  }
  return { ...(parsed as Record<string, unknown>) };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
