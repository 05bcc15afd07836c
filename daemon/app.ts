import fastifySwagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import {
  jsonSchemaTransform,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod';
import type { ZodType } from 'zod';
import { CONFIG_SCHEMA } from '../src/config/schema.js';
import { VERSION } from '../src/version.js';
import type { AppDeps } from './deps.js';
import { registerAccounting } from './plugins/accounting.js';
import { registerAdmission } from './plugins/admission.js';
import { registerAuth } from './plugins/auth.js';
import { registerUploads } from './plugins/uploads.js';
import { ingestRoutes } from './routes/ingest.js';
import { frameworkErrors, registerErrorHandling } from './plugins/error-handler.js';
import { registerJsonBody } from './plugins/json-body.js';
import { registerOpenApiConventions } from './openapi.js';
import { accountRoutes } from './routes/account.js';
import { adminRoutes } from './routes/admin.js';
import { answerRoutes } from './routes/answers.js';
import { keyRoutes } from './routes/keys.js';
import { knowledgeRoutes } from './routes/knowledge.js';
import { mcpRoutes } from './routes/mcp.js';
import { memoryRoutes } from './routes/memories.js';
import { queryRoutes } from './routes/query.js';
import { searchRoutes } from './routes/search.js';
import { systemRoutes } from './routes/system.js';
import { watchRoutes } from './routes/watches.js';
import { backupRoutes } from './routes/backup.js';
import { exportRoutes } from './routes/export.js';

/** Where the daemon answers unless configured otherwise. */
const DEFAULT_SERVER = `http://${CONFIG_SCHEMA['server.host'].default}:${CONFIG_SCHEMA['server.port'].default}`;

export interface BuildAppOptions {
  readonly logger?: FastifyBaseLogger;
  readonly bodyLimit?: number;
  /** Largest multipart file upload (ingest.maxUploadBytes). */
  readonly maxUploadBytes?: number;
}

/** Builds the Fastify app without listening: main.ts listens, tests use app.inject(). */
export async function buildApp(deps: AppDeps, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    bodyLimit: options.bodyLimit ?? 1_048_576,
    // Per-request info logs halve throughput (STACK.md); errors are still logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    frameworkErrors,
  }).withTypeProvider<ZodTypeProvider>();
  // Fastify hands a missing body to the validator as null; as undefined, a body schema's default applies, so a
  // body-less POST (such as POST /v1/reindex with only Content-Type: application/json) means the defaults.
  app.setValidatorCompiler<ZodType>((route) => {
    const validate = validatorCompiler(route);
    return route.httpPart === 'body' ? (data) => validate(data ?? undefined) : validate;
  });
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  registerJsonBody(app);

  registerOpenApiConventions(app);
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'mem Memory API',
        version: VERSION,
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'Local-first memory service. Every route except /health needs the API key, as Authorization: Bearer <API_KEY> or X-API-Key: <API_KEY> (both present must name the same key).',
      },
      servers: [{ url: DEFAULT_SERVER, description: 'The local daemon on its default port (GET /openapi.json names the address it answers on).' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
    },
    transform: jsonSchemaTransform,
  });

  registerAuth(app, deps.auth);
  await registerUploads(app, options.maxUploadBytes ?? 10 * 1024 * 1024);
  registerAccounting(app, deps);
  registerAdmission(app, deps.load.admission, deps.load.timings, deps.load.pace);
  await app.register(systemRoutes(deps));
  await app.register(memoryRoutes(deps));
  await app.register(searchRoutes(deps));
  await app.register(queryRoutes(deps));
  await app.register(keyRoutes(deps));
  await app.register(knowledgeRoutes(deps));
  await app.register(answerRoutes(deps));
  await app.register(accountRoutes(deps));
  await app.register(ingestRoutes(deps));
  await app.register(adminRoutes(deps));
  await app.register(mcpRoutes(deps));
  await app.register(watchRoutes(deps));
  await app.register(exportRoutes(deps));
  await app.register(backupRoutes(deps));

  app.get('/openapi.json', { schema: { hide: true } }, async () => {
    const document = app.swagger();
    const address = deps.runtime.address();
    return address ? { ...document, servers: [{ url: address, description: 'This daemon.' }] } : document;
  });
  return app;
}
