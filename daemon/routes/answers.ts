import { Readable } from 'node:stream';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  AskBody,
  AskResponse,
  ErrorBody,
  RemindBody,
  RemindResponse,
  TurboAskBody,
  TurboAskResponse,
  TurboSaveBody,
  TurboSaveResponse,
} from '../../src/api/contract.js';
import type { AnswerRun } from '../../src/core/answers/ask-service.js';
import { MemError } from '../../src/errors.js';
import type { AppDeps } from '../deps.js';
import { requireAuth, requireWrite, spaceFor } from '../plugins/auth.js';
import { iso, parseBound, presentAnswer, preview } from '../present.js';

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * The answer as server-sent events: `delta` events ({text}) as the model produces it, then one `done`
 * event carrying exactly the JSON body the non-streaming request would get. A failure after the stream has
 * started (headers are sent by then) arrives as an `error` event with the usual error envelope.
 */
async function* answerEvents(run: AnswerRun, includeContext: boolean, log: FastifyBaseLogger): AsyncGenerator<string> {
  try {
    for await (const text of run.deltas) yield event('delta', { text });
    yield event('done', presentAnswer(await run.result, includeContext));
  } catch (error) {
    const memError =
      error instanceof MemError ? error : new MemError('INTERNAL_ERROR', 'Internal server error. See the daemon log (mem daemon logs).');
    if (!(error instanceof MemError)) log.error({ err: error }, 'streamed answer failed');
    yield event('error', memError.toBody());
  }
}

export function answerRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/v1/ask',
      {
        schema: {
          summary: 'Ask a question; answered only from your memories, citing them',
          description:
            'Retrieval is hybrid search (limit, spaceId, filters) at relevance >= 0.5; nothing relevant gives ' +
            'noResult: true with a fixed answer and a suggestion. With Accept: text/event-stream (or stream: true) ' +
            'the answer streams as server-sent events: `delta` {text} events, then a `done` event whose data is ' +
            'this JSON response (an `error` event with the error envelope if the model fails mid-answer).',
          tags: ['answers'],
          body: AskBody,
          response: { 200: AskResponse, 503: ErrorBody },
        },
      },
      async (request, reply) => {
        const { tenant } = requireAuth(request.auth);
        const body = request.body;
        const input = {
          query: body.query,
          limit: body.limit,
          tier: body.model,
          hybrid: true,
          filter: {
            spaceId: body.spaceId,
            tags: body.filters?.tags,
            after: parseBound(body.filters?.after, 'start'),
            before: parseBound(body.filters?.before, 'end'),
          },
        };
        const streaming = body.stream || (request.headers.accept ?? '').includes('text/event-stream');
        if (!streaming) return presentAnswer(await deps.asker.ask(tenant, input), body.includeContext);

        // A client that hangs up stops the model too.
        const hangUp = new AbortController();
        reply.raw.once('close', () => {
          if (!reply.raw.writableFinished) hangUp.abort();
        });
        // Retrieval and the model's first chunk happen here: their errors still get the normal envelope.
        const run = await deps.asker.start(tenant, input, hangUp.signal);
        // The 200 schema describes the JSON body; a stream is sent as is (Fastify never serialises streams).
        const untyped: FastifyReply = reply;
        return untyped
          .header('content-type', 'text/event-stream; charset=utf-8')
          .header('cache-control', 'no-cache')
          .header('x-accel-buffering', 'no')
          .send(Readable.from(answerEvents(run, body.includeContext, request.log)));
      },
    );

    app.post(
      '/v1/remind',
      {
        schema: {
          summary: 'Memories relevant to a context, with the reason for each',
          description:
            'Hybrid search with the context text; timeframe bounds createdAt (today: since 00:00 UTC, week: 7 days, ' +
            'month: 30 days, all: default). reason cites the evidence: shared names, a date, shared topic words.',
          tags: ['answers'],
          body: RemindBody,
          response: { 200: RemindResponse, 503: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        const { reminders, totalFound } = await deps.reminder.remind(tenant, request.body);
        return {
          success: true as const,
          reminders: reminders.map(({ memory, relevance, reason }) => ({
            id: memory.id,
            title: memory.title,
            content: preview(memory.content),
            relevance,
            reason,
            createdAt: iso(memory.createdAt),
          })),
          totalFound,
        };
      },
    );

    app.post(
      '/v1/turbo/save',
      {
        schema: {
          summary: 'Fast save: store and embed, no extraction',
          description: 'No entity, fact or graph extraction. processingTime is in milliseconds, measured in the daemon.',
          tags: ['answers'],
          body: TurboSaveBody,
          response: { 201: TurboSaveResponse, 403: ErrorBody, 503: ErrorBody },
        },
      },
      async (request, reply) => {
        const auth = requireWrite(request.auth);
        const body = request.body;
        const { memory, processingTime } = await deps.saves.turboSave(auth, {
          content: body.content,
          title: body.title,
          tags: body.tags,
          spaceId: spaceFor(auth, body.spaceId),
          context: body.context,
          author: body.author,
        });
        return reply.status(201).send({ success: true as const, documentId: memory.id, processingTime });
      },
    );

    app.post(
      '/v1/turbo/ask',
      {
        schema: {
          summary: 'Fast ask: semantic search and the fast answer model',
          description: 'Semantic retrieval only (no keyword pass) and the fast tier. processingTime is in milliseconds.',
          tags: ['answers'],
          body: TurboAskBody,
          response: { 200: TurboAskResponse, 503: ErrorBody },
        },
      },
      async (request) => {
        const { tenant } = requireAuth(request.auth);
        const result = await deps.turbo.ask(tenant, request.body);
        return {
          success: true as const,
          answer: result.answer,
          processingTime: result.processingTime,
          confidence: result.confidence,
          tokensUsed: result.tokensUsed,
          noResult: result.noResult,
          ...(result.suggestion !== undefined ? { suggestion: result.suggestion } : {}),
          sources: result.sources.map((source) => ({ ...source })),
          model: result.model,
        };
      },
    );
  };
}
