/** The three screens of `mem tui`, in Tab order, with the key that jumps to each. */
export const VIEWS = [
  { name: 'graph', key: 'g', title: 'Graph' },
  { name: 'memories', key: 'm', title: 'Memories' },
  { name: 'ask', key: 'a', title: 'Ask' },
] as const;

export type ViewName = (typeof VIEWS)[number]['name'];

/** The view `step` places after `view` in Tab order (negative: Shift-Tab), wrapping around. */
export function nextView(view: ViewName, step: number): ViewName {
  const index = VIEWS.findIndex((entry) => entry.name === view);
  const next = VIEWS[(((index + step) % VIEWS.length) + VIEWS.length) % VIEWS.length];
  return next?.name ?? view;
}
