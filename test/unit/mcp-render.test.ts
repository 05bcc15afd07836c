import { describe, expect, it } from 'vitest';
import type { Fact } from '../../src/api/contract.js';
import { factsText } from '../../src/mcp/render.js';

const DAY = 86_400_000;
const fact = (object: string, validFrom: number | null, validTo: number | null): Fact => ({
  id: `fact_${object}`,
  statement: `Ana Silva lives in ${object}`,
  subject: 'Ana Silva',
  predicate: 'LIVES_IN',
  object,
  category: 'attribute',
  confidence: 0.8,
  source: { documentId: 'mem_1', excerpt: `Ana Silva lives in ${object}.` },
  extractedAt: new Date().toISOString(),
  validFrom: validFrom === null ? null : new Date(validFrom).toISOString(),
  validTo: validTo === null ? null : new Date(validTo).toISOString(),
  supersededBy: validTo === null ? null : 'fact_next',
  supportingDocuments: ['mem_1'],
});

describe('facts as an agent reads them (MCP)', () => {
  it('says whether a validity date has passed or is still to come', () => {
    const now = Date.now();
    const text = factsText({
      success: true,
      facts: [fact('Porto', null, now - 30 * DAY), fact('Lisbon', now - 30 * DAY, now + 30 * DAY), fact('Oslo', now + 30 * DAY, null), fact('Faro', null, null)],
      pagination: { limit: 20, offset: 0, total: 4 },
    });
    const line = (object: string) => text.split('\n').find((row) => row.includes(`LIVES_IN ${object} `)) ?? '';
    expect(line('Porto')).toContain('no longer true since');
    expect(line('Lisbon')).toContain('true until');
    expect(line('Oslo')).toContain('true from');
    expect(line('Faro')).toContain('current');
  });
});
