import { rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, json, mem, ROOT } from '../helpers/cli.js';
import { tempHome } from '../helpers/temp-home.js';

/**
 * `mem tui` in a real terminal: tmux runs it against a real daemon; the test types with `send-keys` and
 * reads the screen with `capture-pane`, waiting for what should appear (never for a fixed time).
 */
const home = tempHome('mem-e2e-tui-');
const socket = `mem-tui-${process.pid}-${Date.now()}`;
let env: NodeJS.ProcessEnv;

// Ink renders nothing live when it believes it runs in CI; a person's terminal has no such variables.
const terminalEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => name !== 'CI' && name !== 'CONTINUOUS_INTEGRATION' && !name.startsWith('CI_')),
);

const tmux = (...args: string[]) => execa('tmux', ['-L', socket, ...args], { env: terminalEnv, extendEnv: false, reject: false });

async function screen(): Promise<string> {
  return String((await tmux('capture-pane', '-p', '-t', 'tui')).stdout ?? '');
}

async function waitForScreen(check: (text: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await screen();
    if (check(text)) return text;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; the screen:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const showing = (needle: string) => waitForScreen((text) => text.includes(needle), JSON.stringify(needle));
const keys = (...names: string[]) => tmux('send-keys', '-t', 'tui', ...names);
const typeText = (text: string) => tmux('send-keys', '-t', 'tui', '-l', text);

beforeAll(async () => {
  env = { ...home.env, MEM_PORT: String(await freePort()) };
  const started = await mem(['daemon', 'start', '--json'], env);
  expect(started.exitCode, started.stderr).toBe(0);
  for (const content of [
    'Met Sarah Chen from Acme Corp in Berlin to discuss the Q3 roadmap',
    'Sarah Chen works at Acme Corp as the CTO. She lives in Berlin.',
  ]) {
    const saved = await mem(['save', content, '--json'], env);
    expect(saved.exitCode, saved.stderr).toBe(0);
    expect(json<{ documentId: string }>(saved).documentId).toMatch(/^mem_/);
  }
});

afterAll(async () => {
  // kill-server leaves the socket file behind; ask the server where it is first.
  const socketPath = String((await tmux('display-message', '-p', '#{socket_path}')).stdout ?? '').trim();
  await tmux('kill-server');
  if (socketPath) rmSync(socketPath, { force: true });
  await mem(['daemon', 'stop'], env);
  home.remove();
});

describe('mem tui', () => {
  it('refuses politely when stdout is not a terminal', async () => {
    const result = await mem(['tui'], env);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('error[VALIDATION_ERROR]: mem tui needs an interactive terminal');
  });

  it('with no daemon answering, shows the error and the hint; once it answers, r loads the screen', async () => {
    // The TUI talks to a port where nothing listens yet; later a proxy to the real daemon opens there.
    const port = await freePort();
    const daemonPort = Number(env.MEM_PORT);
    const variables = Object.entries({ ...env, MEM_HOST: `http://127.0.0.1:${port}` }).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
    const command = `'${process.execPath}' '${ROOT}/bin/mem.js' tui; echo "tui-exit=$?"; exec sleep 600`;
    const created = await tmux('new-session', '-d', '-s', 'down', '-x', '80', '-y', '24', ...variables, '-c', ROOT, command);
    expect(created.exitCode, String(created.stderr)).toBe(0);
    const read = async () => String((await tmux('capture-pane', '-p', '-t', 'down')).stdout ?? '');
    const waitDown = async (check: (text: string) => boolean, what: string) => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const text = await read();
        if (check(text)) return text;
        if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; the screen:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const text = await waitDown((current) => current.includes('DAEMON_UNREACHABLE'), 'the error');
    expect(text).toContain(`No mem daemon is answering at http://127.0.0.1:${port}`);
    expect(text).toContain('hint: Start it with `mem daemon start`');
    expect(text).toContain('Press r to retry.');

    const proxy = createServer((socket) => {
      const upstream = connect(daemonPort, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
    try {
      await tmux('send-keys', '-t', 'down', 'r');
      const loaded = await waitDown((current) => current.includes('Sarah Chen') && !current.includes('DAEMON_UNREACHABLE'), 'the entities');
      expect(loaded).toContain('Top entities by mentions');
      await tmux('send-keys', '-t', 'down', 'q');
      await waitDown((current) => current.includes('tui-exit=0'), 'the exit');
    } finally {
      proxy.close();
    }
  });

  it('explores the graph, searches memories and asks, in a real terminal, then q exits and gives the screen back', async () => {
    const variables = Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
    // The shell outlives the TUI (tmux drops a dead pane's main screen), so its screen can be read after q.
    const command = `echo shell-before-tui; '${process.execPath}' '${ROOT}/bin/mem.js' tui; echo "tui-exit=$?"; exec sleep 600`;
    const created = await tmux('new-session', '-d', '-s', 'tui', '-x', '100', '-y', '30', ...variables, '-c', ROOT, command);
    expect(created.exitCode, String(created.stderr)).toBe(0);

    // The picker lists the entities the saves extracted, most mentioned first.
    await waitForScreen((text) => text.includes('Top entities by mentions') && text.includes('Sarah Chen') && text.includes('Acme Corp'), 'the top entities');

    // Search by typing, centre on the match.
    await keys('/');
    await showing('Esc stop typing');
    await typeText('acme');
    await showing('Entities matching "acme"');
    await keys('Enter');
    let text = await waitForScreen((current) => current.includes('company ·') && current.includes('Neighbours ('), 'the Acme Corp card');
    expect(text).toMatch(/Acme Corp/);
    expect(text).toMatch(/Facts \(\d+\)/);
    expect(text).toMatch(/WORKS_AT/);
    expect(text).toMatch(/[█░]{8} \d\.\d\d/);

    // Depth 2, then re-centre on the first neighbour and come back.
    await keys('2');
    await showing('depth 2');
    await keys('Enter');
    await showing('back: Acme Corp');
    await keys('BSpace');
    await waitForScreen((current) => current.includes('company ·') && !current.includes('back: Acme Corp'), 'Acme Corp again');

    // Memories: live search.
    await keys('Tab');
    await showing('[Memories]');
    await typeText('berlin');
    text = await waitForScreen((current) => /\d+ results? for "berlin"/.test(current), 'search results');
    expect(text).toContain('Entities:');

    // Ask: the answer and its sources.
    await keys('Tab');
    await showing('[Ask]');
    await typeText('Where does Sarah Chen work?');
    await keys('Enter');
    text = await waitForScreen((current) => current.includes('Sources (') || current.includes('confidence'), 'the answer');
    expect(text).toMatch(/Acme/);

    // q quits: the process ends with 0 and the shell's screen is back, the TUI gone.
    await keys('q');
    text = await showing('tui-exit=0');
    expect(text).toContain('shell-before-tui');
    expect(text).not.toContain('[Ask]');
    const pane = await tmux('list-panes', '-t', 'tui', '-F', '#{pane_current_command}');
    expect(String(pane.stdout).trim()).toBe('sleep');
  });
});
