import { describe, expect, it } from 'vitest';
import { parseJsonObject } from '../../src/cli/input.js';

describe('the CLI\'s JSON flags', () => {
  it('parse a JSON object and say how to write the flag they got wrong, with an example of that flag', () => {
    expect(parseJsonObject('{"createdAt":-1}', '--sort')).toEqual({ createdAt: -1 });
    expect(parseJsonObject(undefined, '--sort')).toBeUndefined();
    expect(() => parseJsonObject('[{"field":"createdAt"}]', '--sort')).toThrow(`--sort must be a JSON object, e.g. '{"createdAt":-1}'.`);
    expect(() => parseJsonObject('{tags:bills}', '--filter')).toThrow(`--filter must be a JSON object, e.g. '{"tags":"bills"}'.`);
    expect(() => parseJsonObject('42', '--metadata')).toThrow(`--metadata must be a JSON object, e.g. '{"source":"email"}'.`);
  });
});
