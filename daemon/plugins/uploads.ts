import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonDepthExceeds } from '../../src/api/json-depth.js';
import { MAX_JSON_DEPTH } from '../../src/api/limits.js';
import { MemError } from '../../src/errors.js';

export interface Upload {
  readonly body: Buffer;
  readonly filename: string;
  readonly mimeType: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    upload: Upload | null;
  }
}

/** multipart/form-data for file saves, one file of at most `maxUploadBytes`. */
export async function registerUploads(app: FastifyInstance, maxUploadBytes: number): Promise<void> {
  app.decorateRequest('upload', null);
  await app.register(multipart, { limits: { fileSize: maxUploadBytes, files: 1, fields: 20, fieldSize: 200_000 } });
}

/** Form fields as the JSON body would carry them: tags comma-separated or a JSON array, metadata as JSON. */
function fieldValue(name: string, value: string): unknown {
  if (name === 'tags') {
    const trimmed = value.trim();
    if (trimmed.startsWith('[')) return parseJson(name, trimmed);
    return trimmed.split(',').map((tag) => tag.trim()).filter(Boolean);
  }
  if (name === 'metadata') return parseJson(name, value);
  if (name === 'async') return value === 'true' || value === '1';
  return value;
}

function parseJson(name: string, value: string): unknown {
  if (jsonDepthExceeds(value, MAX_JSON_DEPTH)) {
    throw new MemError('VALIDATION_ERROR', `Form field ${name} is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new MemError('VALIDATION_ERROR', `Form field ${name} must be JSON.`);
  }
}

/**
 * Reads a multipart save: the `file` part into `request.upload`, the other fields into `request.body`
 * (validated by the route's schema next). A file over the limit is CONTENT_TOO_LARGE.
 */
export async function readUpload(request: FastifyRequest): Promise<void> {
  const body: Record<string, unknown> = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') throw new MemError('VALIDATION_ERROR', `Unexpected file field "${part.fieldname}"; send the file as "file".`);
        const buffer = await part.toBuffer();
        request.upload = { body: buffer, filename: part.filename || 'upload', mimeType: part.mimetype || 'application/octet-stream' };
      } else {
        body[part.fieldname] = fieldValue(part.fieldname, String(part.value));
      }
    }
  } catch (error) {
    if (error instanceof MemError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new MemError('CONTENT_TOO_LARGE', 'The uploaded file is larger than the upload limit.', {
        hint: 'Raise ingest.maxUploadBytes (mem config set ingest.maxUploadBytes <bytes>) or upload a smaller file.',
      });
    }
    if (code.startsWith('FST_')) throw new MemError('VALIDATION_ERROR', `Malformed multipart body: ${(error as Error).message}`);
    throw error;
  }
  if (!request.upload) throw new MemError('VALIDATION_ERROR', 'A multipart save needs a "file" part.');
  request.body = body;
}
