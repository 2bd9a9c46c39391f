import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('pins the export list of @harness/store', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual(
      [
        'AUDIT_CHAIN_ENV',
        'AUDIT_EXPORT_FORMAT',
        'AUDIT_KEY_FILE',
        'AUDIT_PAGE_MAX',
        'DECISION_CHALLENGE_CONTEXT',
        'GENESIS',
        'auditChainOn',
        'auditExportLines',
        'auditKeyRecordFile',
        'compareAuditWithExport',
        'publicKeysIn',
        'readRecordedAuditKey',
        'recordAuditKey',
        'recordNewInstanceKey',
        'canonicalJson',
        'chainOf',
        'checkpointText',
        'decisionChallenge',
        'ensureAuditKey',
        'eventHash',
        'eventText',
        'exportAudit',
        'instanceAuditSigner',
        'normalizePublicKey',
        'readAuditSigner',
        'verifyAuditExport',
        'verifyAuditStore',
        'verifyDecisionAssertion',
        'verifyToolDecisionAssertion',
        'toolDecisionChallenge',
        'TOOL_DECISION_CHALLENGE_CONTEXT',
        'DEFAULT_PG_SCHEMA',
        'STAGE_CAPACITY',
        'STORE_FILE',
        'StoreError',
        'StoreErrorCode',
        'describeStoreTarget',
        'embeddedStoreTarget',
        'migrateStoreTarget',
        'newId',
        'openStoreTarget',
        'postgresTargetFromEnv',
        'readPostgresRecord',
      ].sort(),
    );
  });

  it('gives the record types a browser page reads under ./records, with no runtime but two constants', async () => {
    expect(Object.keys(await import('../src/records')).sort()).toEqual(['AUDIT_PAGE_MAX', 'STAGE_CAPACITY']);
    const source = readFileSync(new URL('../src/types.ts', import.meta.url), 'utf8');
    expect(source).not.toMatch(/^import /m);
  });

  it('has the entries . and ./records, and depends on no package of the host side', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(Object.keys(pkg.exports)).toEqual(['.', './records', './package.json']);
    expect(Object.keys(pkg.dependencies).filter((name) => name.startsWith('@harness/'))).toEqual([
      '@harness/errors',
    ]);
  });
});
