import type { FastifyInstance } from 'fastify';
import { jsonDepthExceeds } from '../../src/api/json-depth.js';
import { MAX_JSON_DEPTH } from '../../src/api/limits.js';
import { MemError } from '../../src/errors.js';

/**
 * application/json bodies: the spec has every request carry `Content-Type: application/json`, so an empty
 * body with that header is no body at all (DELETE, GET, POST /keys/:id/regenerate), not malformed JSON;
 * a route whose schema needs a body still refuses it with VALIDATION_ERROR. Bodies nested deeper than
 * MAX_JSON_DEPTH are refused before parsing. Parsing itself stays Fastify's (prototype-poisoning checks).
 */
export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      done(
        new MemError('VALIDATION_ERROR', `JSON body is nested more than ${MAX_JSON_DEPTH} levels deep.`, {
          details: { limit: MAX_JSON_DEPTH },
        }),
        undefined,
      );
      return;
    }
    parse(request, text, done);
  });
}
