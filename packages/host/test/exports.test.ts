import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('pins the export list of @harness/host', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual(
      [
        'APPROVAL_TTL_MS',
        'HostErrorCode',
        'HostError',
        'STAGE_CAPACITY',
        'AUDIT_PAGE_MAX',
        'checkBroker',
        'checkServes',
        'DEFAULT_PG_SCHEMA',
        'describeStoreTarget',
        'migrateStoreTarget',
        'postgresTargetFromEnv',
        'followApprovals',
        'followAudit',
        'getApproval',
        'decideApproval',
        'initInstance',
        'listApprovals',
        'listDirect',
        'openStore',
        'openStoreTarget',
        'pruneStore',
        'queryAudit',
        'readInstance',
        'runDirect',
        'startBroker',
        'tailAudit',
      ].sort(),
    );
  });

  it('keeps the parts a broker is assembled from under ./internal, an unstable entry', async () => {
    expect(Object.keys(await import('../src/internal')).sort()).toEqual(
      [
        'createCommandHost',
        'loadPackBackend',
        'parseScope',
        'readScopeFile',
        'resolveScope',
        'serveBroker',
      ].sort(),
    );
  });

  it('gives the record types a browser page reads under ./records, with no runtime but two constants', async () => {
    expect(Object.keys(await import('../src/records')).sort()).toEqual(['AUDIT_PAGE_MAX', 'STAGE_CAPACITY']);
    const source = readFileSync(new URL('../src/store/types.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/^import /m);
  });
});
