import { CONFIG_KEYS, CONFIG_SCHEMA, type MemConfig } from './schema.js';

/*
 * Evaluated when the CLI is bundled (scripts/bundle-cli.mjs): the bundle holds these values as literals, so
 * that a command finds the daemon without loading the config schema and zod (client-settings.ts). Only
 * values that are the same on every machine belong here (no defaults computed from the CPU count).
 */

/** The config keys a command needs to reach the daemon. */
export const CLIENT_KEYS = ['client.url', 'client.autoStart', 'client.timeoutMs', 'server.port'] as const;
export type ClientConfig = Pick<MemConfig, (typeof CLIENT_KEYS)[number]>;

/** Their defaults, from the config schema. */
export const CLIENT_DEFAULTS = Object.fromEntries(CLIENT_KEYS.map((key) => [key, CONFIG_SCHEMA[key].default])) as ClientConfig;

/** The environment variable that sets each config key that has one. */
export const CONFIG_ENV: Readonly<Partial<Record<string, string>>> = Object.fromEntries(
  CONFIG_KEYS.flatMap((key) => {
    const spec = CONFIG_SCHEMA[key];
    return 'env' in spec && spec.env ? [[key, spec.env]] : [];
  }),
);
