import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EntitiesResponse } from '../../src/api/contract.js';
import { ENTITIES, FakeClient } from './fake-client.js';
import { KEYS, renderApp, type Rendered } from './render-app.js';

let app: Rendered | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
  vi.restoreAllMocks();
});

describe('mem tui app', () => {
  it('Tab and Shift-Tab cycle the views, g m a jump to them; each view keeps its state', async () => {
    app = renderApp({ client: new FakeClient(), debounceMs: 20, address: 'http://127.0.0.1:7373' });
    await app.waitFor('› Sarah Chen');
    expect(app.screen().split('\n')[0]).toMatch(/^mem \[Graph\] {3}Memories {4}Ask\s+http:\/\/127\.0\.0\.1:7373$/);
    app.press(KEYS.enter);
    await app.waitFor('person · 4 mentions');

    app.press(KEYS.tab);
    await app.waitFor('Newest memories (3)');
    expect(app.screen()).toContain('[Memories]');
    app.press(KEYS.tab);
    await app.waitFor('[Ask]');
    app.press(KEYS.tab);
    // Back on the graph, still centred on Sarah Chen.
    await app.waitFor((screen) => screen.includes('[Graph]') && screen.includes('person · 4 mentions'));
    app.press(KEYS.shiftTab);
    await app.waitFor('[Ask]');
    // Esc on its own (an Esc followed at once by a key is Alt+key), then the view's letter.
    app.press(KEYS.escape);
    await app.waitFor('/ new question');
    app.press('m');
    await app.waitFor('[Memories]');
    app.press(KEYS.escape);
    await app.waitFor('⏎ entities');
    app.press('g');
    await app.waitFor('[Graph]');
  });

  it('q quits, except in a text field, where it is typed', async () => {
    app = renderApp({ client: new FakeClient(), debounceMs: 20, initialView: 'memories' });
    await app.waitFor('Newest memories (3)');
    const listening = () => app!.stdin.listenerCount('readable');
    expect(listening()).toBeGreaterThan(0);
    app.type('q');
    await app.waitFor('Search: q');
    expect(listening()).toBeGreaterThan(0);
    app.press(KEYS.escape);
    await app.waitFor('⏎ entities');
    app.press('q');
    await app.waitFor(() => listening() === 0);
  });

  it('follows the terminal when it is resized', async () => {
    app = renderApp({ client: new FakeClient(), debounceMs: 20, address: 'http://127.0.0.1:7373' });
    await app.waitFor('› Sarah Chen');
    const width = () => Math.max(...app!.screen().split('\n').map((line) => line.length));
    const height = () => app!.screen().split('\n').length;
    expect(width()).toBe(100);
    expect(height()).toBe(23);
    const resize = (columns: number, rows: number) => {
      Object.defineProperty(app!.stdout, 'columns', { value: columns, configurable: true });
      Object.defineProperty(app!.stdout, 'rows', { value: rows, configurable: true });
      app!.stdout.emit('resize');
    };
    resize(140, 40);
    await app.waitFor(() => width() === 140 && height() === 39);
    resize(80, 24);
    await app.waitFor(() => width() === 80 && height() === 23);
    app.press(KEYS.enter);
    const screen = await app.waitFor('person · 4 mentions');
    for (const line of screen.split('\n')) expect(line.length).toBeLessThanOrEqual(80);

    // Too small to draw: a message, and nothing lost when the terminal grows again.
    resize(50, 10);
    await app.waitFor((text) => text.replace(/\s+/g, ' ').includes('mem tui needs a terminal of at least 60x12 (this one is 50x10).'));
    resize(80, 24);
    await app.waitFor('person · 4 mentions');
  });

  it('a view that fails to draw shows the error instead of tearing the screen down; r redraws it', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const client = new FakeClient();
    // A daemon of another version: entities without aliases.
    client.entitiesOverride = () =>
      ({ success: true, entities: [{ ...ENTITIES[0], aliases: undefined }], pagination: { limit: 100, offset: 0, total: 1 }, stats: {} }) as unknown as EntitiesResponse;
    app = renderApp({ client, debounceMs: 20 });
    await app.waitFor('This view failed to draw.');
    expect(app.screen()).toContain('[Graph]');
    client.entitiesOverride = undefined;
    app.press('r');
    await app.waitFor('› Sarah Chen');
  });
});
