/**
 * Checks of the daemon's answers that need no zod, generated at build time from the API contract
 * (scripts/response-checks.mjs): the CLI bundle replaces this module with one that loads the check of a
 * response schema by its name, each in its own small chunk. A check passes only a value that zod would return
 * unchanged, so the client can skip loading zod and building the contract for it.
 *
 * Run from the sources (tests, tsx, the daemon's in-process MCP client) there are no checks, and every answer
 * is parsed by zod.
 */
export type ResponseCheck = (value: unknown) => boolean;

export function loadResponseCheck(_name: string): Promise<ResponseCheck | undefined> {
  return Promise.resolve(undefined);
}
