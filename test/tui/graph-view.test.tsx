import { afterEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import { FakeClient } from './fake-client.js';
import { KEYS, renderApp, type Rendered } from './render-app.js';

let app: Rendered | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

/** The app on the graph view, its picker showing the top entities. */
async function start(client = new FakeClient()) {
  app = renderApp({ client, debounceMs: 20 });
  await app.waitFor('› Sarah Chen');
  return { client, app };
}

/** Centres the explorer on Sarah Chen (the most mentioned entity) and waits for her card. */
async function centreOnSarah(client = new FakeClient()) {
  const started = await start(client);
  started.app.press(KEYS.enter);
  await started.app.waitFor('Neighbours (');
  return started;
}

describe('graph explorer', () => {
  it('starts from the top entities by mentions; / and typing searches names and aliases, once per pause', async () => {
    const { client, app } = await start();
    expect(app.screen()).toMatch(/› Sarah Chen\s+person\s+4\s+aka Sarah/);
    expect(app.screen().indexOf('Sarah Chen')).toBeLessThan(app.screen().indexOf('Globex'));
    expect(client.callsOf('entities')[0]).toMatchObject({ sortBy: 'mentions' });

    app.press('/');
    await app.waitFor((screen) => screen.includes('Esc stop typing'));
    app.type('acm');
    const screen = await app.waitFor('Entities matching "acm"');
    expect(screen).toContain('Acme Corp');
    expect(screen).not.toContain('Globex');
    // The three keys arrived before the pause ended: one request, for the whole word.
    expect(client.callsOf('entities').map((params) => (params as { search?: string }).search)).toEqual([undefined, 'acm']);

    // q typed into the search box is text, not quit.
    app.type('q');
    await app.waitFor('Find entity: acmq');
  });

  it('Enter centres on an entity: type, aliases, mentions, first and last seen, facts, neighbours by relationship with strength bars', async () => {
    const { client, app } = await centreOnSarah();
    const screen = app.screen();
    expect(screen).toContain('Sarah Chen');
    expect(screen).toContain('person · 4 mentions');
    expect(screen).toContain('aka Sarah');
    expect(screen).toContain('seen 2026-01-05 → 2026-03-01');
    expect(screen).toContain('Facts (2)');
    expect(screen).toContain('0.90 Sarah Chen works at Acme Corp');
    expect(screen).toMatch(/WORKS_AT →\s*│?\s*\n.*› Acme Corp\s+company\s+█████░░░ 0\.64/);
    expect(screen).toMatch(/LOCATED_IN →[\s\S]*Berlin\s+location\s+███░░░░░ 0\.42/);
    expect(screen).toMatch(/← RELATED_TO[\s\S]*David Kim\s+person\s+█░░░░░░░ 0\.15/);
    expect(client.callsOf('graph')).toEqual([{ entity: 'ent_sarah', depth: 1, type: undefined, limit: 60 }]);
    expect(client.callsOf('facts')).toEqual([{ entity: 'ent_sarah', limit: 30 }]);
  });

  it('Enter on a neighbour re-centres on it; Backspace walks back through the history', async () => {
    const { client, app } = await centreOnSarah();
    app.press(KEYS.down, KEYS.enter); // Berlin, in the same read as the Enter
    let screen = await app.waitFor('location · 3 mentions');
    expect(screen).toContain('back: Sarah Chen');
    expect(screen).toContain('← LOCATED_IN');

    app.press(KEYS.down, KEYS.enter); // Berlin's second neighbour: Acme Corp (via RELATED_TO)
    screen = await app.waitFor('company · 2 mentions');
    expect(screen).toContain('back: Berlin ◂ Sarah Chen');
    expect(screen).toContain('aka Acme');

    app.press(KEYS.backspace);
    screen = await app.waitFor((text) => text.includes('location · 3 mentions') && text.includes('back: Sarah Chen'));
    app.press(KEYS.backspace);
    screen = await app.waitFor((text) => text.includes('person · 4 mentions') && !text.includes('back:'));
    expect(client.callsOf('graph').map((params) => (params as { entity: string }).entity)).toEqual(['ent_sarah', 'ent_berlin', 'ent_acme', 'ent_berlin', 'ent_sarah']);

    // Backspace with no history left goes back to the picker.
    app.press(KEYS.backspace);
    await app.waitFor('Top entities by mentions');
  });

  it('1, 2 and 3 set the depth: farther entities are listed under the neighbour that reaches them', async () => {
    const { client, app } = await centreOnSarah();
    expect(app.screen()).not.toContain('Globex');
    app.press('2');
    const screen = await app.waitFor('Globex');
    expect(screen).toContain('depth 2');
    // Globex is two hops away, reached through David Kim.
    expect(screen).toMatch(/David Kim[^\n]*\n[^\n]*WORKS_AT → Globex/);
    app.press('3');
    await app.waitFor('depth 3');
    app.press('1');
    await app.waitFor((text) => text.includes('depth 1') && !text.includes('Globex'));
    expect(client.callsOf('graph').map((params) => (params as { depth: number }).depth)).toEqual([1, 2, 3, 1]);
  });

  it('t cycles the entity type filter (T backwards); the daemon filters the graph', async () => {
    const { client, app } = await centreOnSarah();
    app.press('t');
    let screen = await app.waitFor('type person');
    expect(screen).toContain('David Kim');
    expect(screen).not.toMatch(/Acme Corp\s+company/);
    expect(screen).toMatch(/Neighbours \(1\)/);
    app.press('t');
    screen = await app.waitFor('type company');
    expect(screen).toMatch(/› Acme Corp/);
    app.press('T', 'T');
    await app.waitFor('all types');
    expect(client.callsOf('graph').map((params) => (params as { type?: string }).type)).toEqual([undefined, 'person', 'company', undefined]);
  });

  it('a daemon that is down shows what failed and the hint; r retries', async () => {
    const client = new FakeClient();
    client.down = true;
    app = renderApp({ client, debounceMs: 20 });
    const screen = await app.waitFor('DAEMON_UNREACHABLE');
    expect(screen).toContain('✗ Loading entities failed: DAEMON_UNREACHABLE');
    expect(screen).toContain('hint: Start it with `mem daemon start`');
    expect(screen).toContain('Press r to retry.');
    app.press('r');
    await app.waitFor((text) => client.callsOf('entities').length === 2 && text.includes('DAEMON_UNREACHABLE'));
    client.down = false;
    app.press('r');
    await app.waitFor('› Sarah Chen');
  });

  it('an error while exploring keeps the screen alive: the message, then r reloads', async () => {
    const client = new FakeClient();
    await start(client);
    client.failNext.set('graph', new MemError('INTERNAL_ERROR', 'LanceDB table is busy'));
    app?.press(KEYS.enter);
    const screen = await app!.waitFor('failed');
    expect(screen).toContain('✗ Loading Sarah Chen failed: INTERNAL_ERROR');
    expect(screen).toContain('LanceDB table is busy');
    app!.press('r');
    await app!.waitFor('person · 4 mentions');
  });

  it('a slow daemon never freezes the screen, and a late answer never replaces a newer one', async () => {
    const client = new FakeClient();
    await start(client);
    client.holdMethods.add('graph');
    app!.press(KEYS.enter);
    await app!.waitFor('Loading Sarah Chen…');
    // Keys still work while the request hangs.
    app!.press(KEYS.tab);
    await app!.waitFor('[Memories]');
    app!.press(KEYS.escape);
    await app!.waitFor('↑↓ select  ⏎ entities');
    app!.press('g');
    await app!.waitFor('Loading Sarah Chen…');
    // Leave for another entity; its answer comes first, then Sarah's arrives late.
    client.holdMethods.delete('graph');
    app!.press(KEYS.escape);
    await app!.waitFor('Top entities by mentions');
    app!.press(KEYS.down, KEYS.enter);
    await app!.waitFor('location · 3 mentions');
    const answered = client.answered;
    client.release('graph');
    await app!.waitFor(() => client.answered === answered + 1);
    // The late answer has been handed to the view (promise callbacks run before the next macrotask).
    await new Promise((resolve) => setImmediate(resolve));
    expect(app!.screen()).toContain('location · 3 mentions');
    expect(app!.screen()).not.toContain('person · 4 mentions');
  });
});
