import { describe, expect, it } from 'vitest';
import { MemError } from '../../src/errors.js';
import { redactUri, storageLocation } from '../../src/store/location.js';

describe('storage location', () => {
  it('a local directory is the single-daemon default', () => {
    expect(storageLocation('/var/lib/mem/lancedb')).toMatchObject({ shared: false, scheme: 'file', options: {} });
    expect(storageLocation('file:///var/lib/mem')).toMatchObject({ shared: false, scheme: 'file' });
  });

  it('object stores are shared and keep their options', () => {
    expect(storageLocation('az://mem/prod', { azure_storage_account_name: 'acct' })).toMatchObject({
      shared: true,
      scheme: 'az',
      options: { azure_storage_account_name: 'acct' },
      display: 'az://mem/prod',
    });
    expect(storageLocation('s3://bucket/mem')).toMatchObject({ shared: true, scheme: 's3' });
    expect(storageLocation('GS://bucket/mem')).toMatchObject({ shared: true, scheme: 'gs' });
  });

  it('refuses unknown schemes and URIs without a container, as VALIDATION_ERROR', () => {
    for (const uri of ['ftp://host/x', 'memory://x', 'az:///no-container', 'az://']) {
      let caught: unknown;
      try {
        storageLocation(uri);
      } catch (error) {
        caught = error;
      }
      expect(caught, uri).toBeInstanceOf(MemError);
      expect((caught as MemError).code).toBe('VALIDATION_ERROR');
    }
  });

  it('never shows user info or a query string (SAS tokens, keys)', () => {
    expect(redactUri('az://user:secret@mem/path?sig=abc&sv=1')).toBe('az://mem/path');
    const location = storageLocation('s3://AKIA:secret@bucket/mem?x-amz-security-token=t');
    expect(location.display).toBe('s3://bucket/mem');
    expect(JSON.stringify({ ...location, uri: undefined, options: undefined })).not.toContain('secret');
  });
});
