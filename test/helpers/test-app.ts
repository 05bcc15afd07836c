import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../daemon/app.js';
import { createDeps, type CreateDepsOptions, type CreatedDeps } from '../../daemon/create-deps.js';
import type { PlanTable } from '../../src/core/accounts/plans.js';
import { loadConfig } from '../../src/config/load-config.js';
import { BuiltinEmbeddingModel } from '../../src/providers/builtin/builtin-embedding-model.js';
import type { EmbeddingModel } from '../../src/providers/spec.js';
import { tempHome } from './temp-home.js';

export interface TestApp {
  readonly app: FastifyInstance;
  readonly deps: CreatedDeps;
  readonly key: string;
  /** app.inject with the owner's key (unless headers.authorization is given). */
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

let sharedEmbedder: BuiltinEmbeddingModel | null = null;

/** One real built-in embedder per test file: loading it is the slow part of an app. */
export function testEmbedder(): EmbeddingModel {
  sharedEmbedder ??= new BuiltinEmbeddingModel(1);
  return sharedEmbedder;
}

export async function closeTestEmbedder(): Promise<void> {
  await sharedEmbedder?.close();
  sharedEmbedder = null;
}

/** The real app (real LanceDB on a temp dir, real built-in embedder), driven with app.inject(). */
export async function createTestApp(
  options: {
    embedder?: EmbeddingModel;
    home?: ReturnType<typeof tempHome>;
    keepHome?: boolean;
    plans?: PlanTable;
    admissionLimits?: CreateDepsOptions['admissionLimits'];
  } = {},
): Promise<TestApp> {
  const home = options.home ?? tempHome();
  const loaded = loadConfig({ env: home.env });
  const deps = await createDeps({
    loaded,
    embedder: options.embedder ?? testEmbedder(),
    storeFirstKey: false,
    ...(options.plans ? { plans: options.plans } : {}),
    ...(options.admissionLimits ? { admissionLimits: options.admissionLimits } : {}),
  });
  const app = await buildApp(deps);
  await app.ready();
  const key = deps.firstKey ?? (await deps.auth.createKey(deps.ownerId, { name: 'test', type: 'live' })).value;
  return {
    app,
    deps,
    key,
    request(request: InjectOptions) {
      const headers = { authorization: `Bearer ${key}`, ...(request.headers ?? {}) };
      return app.inject({ ...request, headers });
    },
    async close() {
      await app.close();
      await deps.close();
      if (!options.keepHome) home.remove();
    },
  };
}
