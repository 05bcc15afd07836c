import { afterEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import { FakeClient } from './fake-client.js';
import { KEYS, renderApp, type Rendered } from './render-app.js';

let app: Rendered | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

/** The app on the Memories view, the newest memories listed. */
async function start(client = new FakeClient()) {
  app = renderApp({ client, debounceMs: 20, initialView: 'memories' });
  await app.waitFor('Newest memories (3)');
  return { client, app };
}

describe('memories', () => {
  it('lists the newest memories, then live results as you type, one search per pause', async () => {
    const { client, app } = await start();
    expect(app.screen()).toMatch(/› 03-01 Roadmap meeting/);
    app.type('globex');
    const screen = await app.waitFor('1 result for "globex"');
    expect(screen).toMatch(/› 0\.90 Conference/);
    expect(screen).not.toContain('Roadmap meeting');
    expect(client.callsOf('search')).toEqual([{ query: 'globex', limit: 30, threshold: 0, hybrid: true }]);

    // Backspace edits the query; clearing it brings the newest memories back.
    app.press(KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace);
    await app.waitFor('Newest memories (3)');
    expect(client.callsOf('search')).toHaveLength(1);

    // A "/" typed into an empty query (the key that starts a search in the other views) is not searched for.
    app.type('/');
    app.type('acme');
    await app.waitFor((text) => /results? for "acme"/u.test(text));
    expect(client.callsOf('search').at(-1)).toMatchObject({ query: 'acme' });
  });

  it('the selected memory shows in full with its entities; Enter, → and Enter open one in the graph explorer', async () => {
    const { client, app } = await start();
    app.press(KEYS.down);
    // The first memory names the same entities: wait for the second one's own line.
    let screen = await app.waitFor((text) => text.includes('2026-02-10 · mem_2') && text.includes('Entities: Sarah Chen person'));
    expect(screen).toMatch(/› 02-10 Sarah at Acme/);
    expect(screen).toContain('Entities: Sarah Chen person · Berlin location · Acme Corp');
    expect(screen).toContain('Sarah Chen works at Acme Corp as the CTO. She lives in');

    app.press(KEYS.enter); // the list
    await app.waitFor('⏎ entities');
    app.press(KEYS.enter); // the entity row
    await app.waitFor('›Sarah Chen');
    app.press(KEYS.right, KEYS.right);
    await app.waitFor('›Acme Corp');
    app.press(KEYS.enter);
    screen = await app.waitFor('company · 2 mentions');
    expect(screen).toContain('[Graph]');
    expect(screen).toContain('aka Acme');
    expect(client.callsOf('graph')).toEqual([{ entity: 'ent_acme', depth: 1, type: undefined, limit: 60 }]);
  });

  it('a failed search shows the error; Ctrl-R retries while typing', async () => {
    const { client, app } = await start();
    client.failNext.set('search', new MemError('RATE_LIMITED', 'Rate limit exceeded', { hint: 'Wait a minute.' }));
    app.type('berlin');
    const screen = await app.waitFor('✗ Search failed: RATE_LIMITED');
    expect(screen).toContain('hint: Wait a minute.');
    expect(screen).toContain('Press Ctrl-R to retry.');
    app.press(KEYS.ctrlR);
    await app.waitFor('3 results for "berlin"');
  });
});
