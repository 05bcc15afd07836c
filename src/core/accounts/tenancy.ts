import type { KeyType } from '../types.js';

/**
 * Test keys are a sandbox: what a test key writes is stored under the account's test tenant, which live keys
 * never see (and the other way round), like test mode in payment APIs. Every store query is scoped to one
 * tenant id, so the sandbox needs nothing beyond choosing the id here.
 */
const TEST_SUFFIX = '~test';

export function tenantOf(accountId: string, keyType: KeyType): string {
  return keyType === 'test' ? accountId + TEST_SUFFIX : accountId;
}

/** Both tenants of an account: its live data and its test sandbox. */
export function tenantsOf(accountId: string): [string, string] {
  return [accountId, accountId + TEST_SUFFIX];
}

/** The account a tenant id belongs to. */
export function accountOfTenant(tenant: string): string {
  return tenant.endsWith(TEST_SUFFIX) ? tenant.slice(0, -TEST_SUFFIX.length) : tenant;
}
