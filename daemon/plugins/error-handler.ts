import type { FastifyError, FastifyInstance } from 'fastify';
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

/**
 * Every failure leaves the daemon as the spec's envelope {success:false, error, message, details?}:
 * MemErrors keep their code; schema failures become VALIDATION_ERROR naming the field; Fastify's own
 * errors (bad JSON, body too large, wrong content type) are mapped; anything else is a 500 that logs the
 * cause but never shows internals.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
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
    return reply.status(memError.status).send(memError.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    const error = new MemError('NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`, {
      hint: 'See GET /openapi.json for every route.',
    });
    return reply.status(404).send(error.toBody());
  });
}
