/** What each format's extractor returns; extract.ts adds the fields every document has. */
export interface Extraction {
  readonly text: string;
  readonly title: string | null;
  /** Format-specific metadata; null and undefined values are dropped before it reaches the caller. */
  readonly metadata: Readonly<Record<string, unknown>>;
}
