import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('pins the export list of @harness/host', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual(
      [
        'APPROVAL_TTL_MS',
        'BUILTIN_IDS',
        'BUILTIN_ROWS',
        'CREDENTIALS_FILE',
        'HostErrorCode',
        'HostError',
        'INSTANCE_FILE',
        'MAX_COMPONENTS',
        'MAX_CONTEXT_RECEIPTS',
        'STAGE_CAPACITY',
        'AUDIT_PAGE_MAX',
        'STORE_FILE',
        'checkBroker',
        'checkServes',
        'createCommandHost',
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
        'loadPackBackend',
        'openStore',
        'openStoreTarget',
        'parseScope',
        'pruneStore',
        'queryAudit',
        'readInstance',
        'readScopeFile',
        'resolveScope',
        'runDirect',
        'serveBroker',
        'startBroker',
        'tailAudit',
      ].sort(),
    );
  });
});
