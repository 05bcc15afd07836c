import { afterEach, describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import { answer, FakeClient, MEMORIES } from './fake-client.js';
import { KEYS, renderApp, type Rendered } from './render-app.js';

let app: Rendered | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

async function askQuestion(client: FakeClient, question: string) {
  app = renderApp({ client, debounceMs: 20, initialView: 'ask' });
  await app.waitFor('Ask:');
  app.type(question);
  await app.waitFor(`Ask: ${question}`);
  app.press(KEYS.enter);
  await app.waitFor('Thinking…');
  const stream = client.streams.at(-1);
  if (!stream) throw new Error('no stream');
  return { app, stream };
}

describe('ask', () => {
  it('a question pasted in one chunk with Enter is submitted (a paste, tmux send-keys)', async () => {
    const client = new FakeClient();
    app = renderApp({ client, debounceMs: 20, initialView: 'ask' });
    await app.waitFor('Ask:');
    app.press('Where did I meet Sarah?\r');
    await app.waitFor('Thinking…');
    expect(client.callsOf('askStream')).toEqual([{ query: 'Where did I meet Sarah?', limit: 10 }]);
  });

  it('a multi-line paste ending in Enter is asked as one line; without Enter it is only typed', async () => {
    const client = new FakeClient();
    app = renderApp({ client, debounceMs: 20, initialView: 'ask' });
    await app.waitFor('Ask:');
    app.press('Where did\nI meet');
    await app.waitFor('Ask: Where did I meet');
    expect(client.callsOf('askStream')).toEqual([]);
    app.press(' Sarah?\r\n');
    await app.waitFor('Thinking…');
    expect(client.callsOf('askStream')).toEqual([{ query: 'Where did I meet Sarah?', limit: 10 }]);
  });

  it('a chunk of only line breaks on an empty field asks nothing', async () => {
    const client = new FakeClient();
    app = renderApp({ client, debounceMs: 20, initialView: 'ask' });
    await app.waitFor('Ask:');
    app.press('  \r');
    app.press(KEYS.enter);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(client.callsOf('askStream')).toEqual([]);
  });

  it('the answer streams in piece by piece, then its sources, which open in full', async () => {
    const client = new FakeClient();
    const { app, stream } = await askQuestion(client, 'Where does Sarah work?');
    expect(client.callsOf('askStream')).toEqual([{ query: 'Where does Sarah work?', limit: 10 }]);

    stream.delta('Sarah Chen works ');
    await app.waitFor('Sarah Chen works');
    expect(app.screen()).not.toContain('Sources');
    stream.delta('at Acme Corp.');
    await app.waitFor('Sarah Chen works at Acme Corp.');
    stream.done(answer('Sarah Chen works at Acme Corp.', [MEMORIES[1]!, MEMORIES[0]!]));
    let screen = await app.waitFor('Sources (2)');
    expect(screen).toContain('confidence 0.72 · builtin/extractive · 42 tokens');
    expect(screen).toMatch(/› \[1\] Sarah at Acme\s+mem_2/);
    expect(screen).toMatch(/ {2}\[2\] Roadmap meeting\s+mem_1/);

    app.press(KEYS.down);
    await app.waitFor(/› \[2\] Roadmap meeting/.test.bind(/› \[2\] Roadmap meeting/));
    app.press(KEYS.enter);
    screen = await app.waitFor('Met Sarah Chen from Acme Corp in Berlin to discuss the Q3 roadmap.');
    expect(screen).toContain('Entities: Sarah Chen person · Berlin location · Acme Corp company');
    expect(client.callsOf('getMemory')).toEqual(['mem_1']);

    app.press(KEYS.escape);
    await app.waitFor('Sources (2)');
  });

  it('/ after an answer starts a new question on an empty field; i edits the last one', async () => {
    const client = new FakeClient();
    const { app, stream } = await askQuestion(client, 'Who is the CFO of Acme Corp?');
    stream.done(answer('Sarah Chen', [MEMORIES[1]!]));
    await app.waitFor('Sources (1)');
    app.press('/');
    await app.waitFor((screen: string) => /Ask: *\n/.test(screen) || /Ask: *$/m.test(screen));
    app.press('Where does Ana work?\r');
    await app.waitFor(() => client.streams.length === 2);
    client.streams[1]!.done(answer('Initech', [MEMORIES[1]!]));
    await app.waitFor('Sources (1)');
    app.press('i');
    app.press(' now\r');
    await app.waitFor(() => client.streams.length === 3);
    expect(client.callsOf('askStream').map((call) => (call as { query: string }).query)).toEqual([
      'Who is the CFO of Acme Corp?',
      'Where does Ana work?',
      'Where does Ana work? now',
    ]);
  });

  it('an error in the middle of the stream is shown, the text so far kept; r asks again', async () => {
    const client = new FakeClient();
    const { app, stream } = await askQuestion(client, 'What about Globex?');
    stream.delta('David Kim joined');
    await app.waitFor('David Kim joined');
    stream.fail(new MemError('MODEL_UNAVAILABLE', 'Ollama stopped answering', { hint: 'Check `ollama serve`.' }));
    const screen = await app.waitFor('✗ Asking failed: MODEL_UNAVAILABLE');
    expect(screen).toContain('Ollama stopped answering');
    expect(screen).toContain('David Kim joined');

    app.press('r');
    await app.waitFor(() => client.streams.length === 2);
    client.streams[1]!.done(answer('David Kim joined Globex.', [MEMORIES[2]!]));
    await app.waitFor('Sources (1)');
    expect(app.screen()).toContain('David Kim joined Globex.');
    expect(app.screen()).not.toContain('MODEL_UNAVAILABLE');
  });

  it('Esc stops an answer; what arrives after is dropped', async () => {
    const client = new FakeClient();
    const { app, stream } = await askQuestion(client, 'Anything?');
    stream.delta('Partly');
    await app.waitFor('Partly');
    app.press(KEYS.escape);
    await app.waitFor('Stopped. Press r to ask again.');
    stream.delta(' more text');
    stream.done(answer('Partly more text', [MEMORIES[0]!]));
    // Give the dropped events every chance to arrive.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(app.screen()).not.toContain('more text');
    expect(app.screen()).not.toContain('Sources');
  });
});
