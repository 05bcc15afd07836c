import type { DocumentSource, ExtractedDocument as CoreDocument, WebhookSender } from '../core/ingest/types.js';
import { extractDocument, extractFromUrl, type ExtractedDocument } from './extract.js';
import { DEFAULT_FETCH_POLICY, type FetchPolicy } from './fetch-url.js';
import { DEFAULT_WEBHOOK_POLICY, deliverWebhook, validateWebhookUrl } from './webhooks.js';

function toCore(document: ExtractedDocument): CoreDocument {
  return { text: document.text, title: document.title, metadata: { ...document.metadata } };
}

/** The ingest ports of core, backed by the fetching and parsing of this folder. */
export function createDocumentSource(policy: Partial<FetchPolicy>): DocumentSource {
  const full: FetchPolicy = { ...DEFAULT_FETCH_POLICY, ...policy };
  return {
    fromUrl: async (url, signal) => toCore(await extractFromUrl(url, full, signal ? { signal } : {})),
    fromFile: async (body, contentType, filename) => toCore(await extractDocument(body, contentType, filename ? { filename } : {})),
  };
}

export function createWebhookSender(options: { allowPrivateNetworks: boolean }): WebhookSender {
  const policy = { ...DEFAULT_WEBHOOK_POLICY, allowPrivateNetworks: options.allowPrivateNetworks };
  return {
    validate: (url) => validateWebhookUrl(url),
    deliver: async (url, payload, deliver) => {
      const result = await deliverWebhook(url, payload, {
        secret: deliver.secret,
        policy,
        onAttempt: deliver.onAttempt,
        ...(deliver.signal ? { signal: deliver.signal } : {}),
      });
      return { delivered: result.delivered, attempts: result.attempts };
    },
  };
}
