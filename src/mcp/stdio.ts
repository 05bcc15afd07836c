import { PassThrough, Writable, type Readable } from 'node:stream';
import { earlyInitializeAnswer } from './early-initialize.js';
import type { MemoryApi } from './memory-api.js';

/** How far the front reads for the first line before it leaves everything to the SDK. */
const FIRST_LINE_LIMIT = 1024 * 1024;

export interface StdioStreams {
  readonly input: Readable;
  readonly output: Writable;
  /** Where a note for the user goes (never the protocol's stdout). */
  readonly log: (text: string) => void;
}

/**
 * Serves MCP on stdin/stdout until the client closes stdin. stdout carries only the protocol: console
 * output from any library is sent to stderr while serving, since one stray line would corrupt the stream.
 *
 * The session's first message, the client's `initialize`, is answered before the MCP SDK loads when
 * early-initialize.ts may answer it; the SDK's server then reads every byte of the input from the start,
 * that `initialize` included, so its state is what it would have been, and its own answer to that
 * `initialize` (the same line, taken from it at build time) is not written twice.
 */
export async function serveStdio(api: MemoryApi, streams: StdioStreams = defaultStreams()): Promise<void> {
  const { input, output, log } = streams;
  const received: Buffer[] = [];
  let size = 0;
  let ended = false;
  const firstLine = await new Promise<string | undefined>((resolve) => {
    const onData = (chunk: Buffer) => {
      received.push(chunk);
      size += chunk.length;
      const newline = chunk.indexOf(0x0a);
      if (newline >= 0 || size > FIRST_LINE_LIMIT) {
        stop();
        resolve(newline >= 0 ? Buffer.concat(received).toString('utf8').split('\n', 1)[0]!.replace(/\r$/, '') : undefined);
      }
    };
    const onEnd = () => {
      ended = true;
      stop();
      resolve(undefined);
    };
    const stop = () => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('close', onEnd);
      input.pause();
    };
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('close', onEnd);
    log('mem MCP server ready on stdio\n');
  });

  const early = firstLine === undefined ? undefined : earlyInitializeAnswer(firstLine);
  if (early) output.write(early.answer);
  // Nothing came after an answered `initialize`: the SDK would only have answered it too.
  if (early && ended && Buffer.concat(received).toString('utf8').trim() === firstLine!.trim()) return;

  const [{ StdioServerTransport }, { createMcpServer }] = await Promise.all([import('@modelcontextprotocol/sdk/server/stdio.js'), import('./server.js')]);
  const replay = new PassThrough();
  const server = createMcpServer(api);
  const transport = new StdioServerTransport(replay, early ? withoutFirstAnswer(output, early, log) : output);
  const closed = new Promise<void>((resolve) => {
    // The SDK's transport does not watch for end of input; without this the process would never exit.
    replay.once('end', resolve);
    transport.onclose = resolve;
  });
  await server.connect(transport);
  replay.write(Buffer.concat(received));
  if (ended) replay.end();
  else {
    input.pipe(replay);
    input.once('close', () => replay.end());
    input.resume();
  }
  await closed;
  await server.close();
}

function defaultStreams(): StdioStreams {
  const toStderr = (...values: unknown[]) => console.error(...values);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  return { input: process.stdin, output: process.stdout, log: (text) => process.stderr.write(text) };
}

/**
 * `output`, less the SDK's answer to the `initialize` already answered: the first message it writes (the
 * SDK writes one message per write). Were it to differ from the early answer, the build's table is stale:
 * said on stderr, since the client has its answer already.
 */
function withoutFirstAnswer(output: Writable, early: { readonly answer: string }, log: (text: string) => void): Writable {
  let first = true;
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (first) {
        first = false;
        if (chunk.toString('utf8') !== early.answer) log(`mem mcp: the SDK answered initialize differently from the early answer: ${chunk.toString('utf8')}`);
        callback();
        return;
      }
      if (output.write(chunk)) callback();
      else output.once('drain', () => callback());
    },
  });
}
