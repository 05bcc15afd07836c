/*
 * Replaced when the CLI is bundled (scripts/bundle-cli.mjs): the file name of the one-file bundle of the hot
 * path (hot-main.ts), next to the launcher, and a hash of its content, which names its code cache. Run from
 * the sources (tests, tsx) there is no such bundle, and every command line goes to main.ts.
 */
export const HOT_BUNDLE: { readonly file: string; readonly hash: string } | undefined = undefined;
