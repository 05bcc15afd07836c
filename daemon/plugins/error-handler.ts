import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { MemError } from '../../src/errors.js';

interface ZodIssueLike {
  readonly message?: string;
  readonly instancePath?: string;
  readonly params?: { issue?: { path?: PropertyKey[]; message?: string } };
}

function describeValidation(error: FastifyError): { message: string; details: Record<string, unknown> } {
  const context = error.validationContext ?? 'body';
  const issues = (error.validation ?? []) as ZodIssueLike[];
  const described = issues.map((issue) => {
    const path = issue.params?.issue?.path?.map(String).join('.') || issue.instancePath?.replace(/^\//, '').replaceAll('/', '.') || '';
    const message = issue.params?.issue?.message ?? issue.message ?? 'invalid';
    return { path: path ? `${context}.${path}` : context, message };
  });
  const first = described[0];
  const message = first ? `Invalid ${first.path}: ${first.message}` : `Invalid request ${context}`;
  return { message, details: { issues: described } };
}

/** The most of an unread request body drained before an error answer, and for how long. */
const DRAIN_MAX_BYTES = 128 * 1024 * 1024;
const DRAIN_MAX_MS = 15_000;

/**
 * Reads and discards what is left of a request body before its error answer is sent. Fastify answers an
 * oversized body (413) or a malformed one with `Connection: close` while the client may still be sending;
 * closing a socket that has unread data resets it, and the client then sees a dropped connection ("fetch
 * failed") instead of the answer, depending on timing. Bounded, so an endless upload cannot hold the socket.
 */
function drainBody(raw: IncomingMessage): Promise<void> {
  if (raw.complete || raw.destroyed || raw.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    let received = 0;
    const finish = () => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', finish).off('error', finish).off('close', finish);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > DRAIN_MAX_BYTES) finish();
    };
    const timer = setTimeout(finish, DRAIN_MAX_MS);
    raw.on('data', onData).on('end', finish).on('error', finish).on('close', finish);
    raw.resume();
  });
}

/**
 * Fastify's own errors raised before routing (a path that is not valid UTF-8 once percent-decoded, a
 * malformed header) as the spec's envelope instead of Fastify's {error, code, statusCode}.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const memError =
    error.code === 'FST_ERR_BAD_URL'
      ? new MemError('VALIDATION_ERROR', 'The request path is not valid: a percent-encoded segment is not UTF-8.', {
          hint: 'Percent-encode ids as UTF-8 (encodeURIComponent).',
        })
      : new MemError('VALIDATION_ERROR', `Malformed request: ${error.message}`);
  void reply.status(memError.status).send(memError.toBody());
}

/**
 * Every failure leaves the daemon as the spec's envelope {success:false, error, message, details?}:
 * MemErrors keep their code; schema failures become VALIDATION_ERROR naming the field; Fastify's own
 * errors (bad JSON, body too large, wrong content type) are mapped; anything else is a 500 that logs the
 * cause but never shows internals.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(async (error: FastifyError, request, reply) => {
    let memError: MemError;
    if (error instanceof MemError) {
      memError = error;
    } else if (hasZodFastifySchemaValidationErrors(error) || error.validation) {
      const { message, details } = describeValidation(error);
      memError = new MemError('VALIDATION_ERROR', message, { details });
    } else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      memError = new MemError('CONTENT_TOO_LARGE', 'Request body is too large.', {
        hint: 'Saved content is limited to 100 KB; split it into several memories.',
      });
    } else if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      memError = new MemError('VALIDATION_ERROR', `Unsupported Content-Type; send application/json.`);
    } else if (
      error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
      error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      (error instanceof SyntaxError && error.statusCode === 400)
    ) {
      memError = new MemError('VALIDATION_ERROR', `Malformed JSON body: ${error.message}`);
    } else if (isResponseSerializationError(error)) {
      request.log.error({ err: error }, 'response did not match its schema');
      memError = new MemError('INTERNAL_ERROR', 'Internal error while building the response.');
    } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      memError = new MemError(error.statusCode === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR', error.message);
    } else {
      request.log.error({ err: error }, 'unhandled error');
      memError = new MemError('INTERNAL_ERROR', 'Internal server error. See the daemon log (mem daemon logs).');
    }
    if (memError.code === 'INTERNAL_ERROR' && error instanceof MemError) {
      request.log.error({ err: error }, 'internal error');
    }
    const retryAfter = memError.extra?.retryAfter;
    if (typeof retryAfter === 'number') void reply.header('Retry-After', String(retryAfter));
    await drainBody(request.raw);
    return reply.status(memError.status).send(memError.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    const error = new MemError('NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`, {
      hint: 'See GET /openapi.json for every route.',
    });
    return reply.status(404).send(error.toBody());
  });
}
