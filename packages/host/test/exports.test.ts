import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('pins the export list of @harness/host', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual(
      [
        'APPROVAL_TTL_MS',
        'AUDIT_CHAIN_ENV',
        'approvalsOf',
        'HostErrorCode',
        'HostError',
        'checkBroker',
        'checkServes',
        'describeStoreTarget',
        'postgresTargetFromEnv',
        'StoreError',
        'StoreErrorCode',
        'followApprovals',
        'followAudit',
        'getApproval',
        'decideApproval',
        'initInstance',
        'listApprovals',
        'listDirect',
        'notDecidableText',
        'openStore',
        'pruneStore',
        'queryAudit',
        'readInstance',
        'runDirect',
        'startBroker',
        'tailAudit',
        'withApprovals',
      ].sort(),
    );
  });

  it('keeps the parts a broker is assembled from under ./internal, an unstable entry', async () => {
    expect(Object.keys(await import('../src/internal')).sort()).toEqual(
      [
        'createCommandHost',
        'definitionDiff',
        'definitionHash',
        'definitionTextHash',
        'heldFor',
        'heldTools',
        'definitionJson',
        'loadPackBackend',
        'parseScope',
        'readScopeFile',
        'resolveScope',
        'serveBroker',
        'serverLogFile',
      ].sort(),
    );
  });

  it('keeps what the commands a person runs share under ./operator: the terminal display and a decision', async () => {
    expect(Object.keys(await import('../src/operator')).sort()).toEqual(
      [
        'SHOWN_CHARS',
        'acceptWorkspace',
        'ageText',
        'approvalBlock',
        'approvalLine',
        'approvalsListing',
        'auditLine',
        'decideAsPerson',
        'decisionText',
        'personName',
        'rejectWorkspace',
        'reviewWorkspace',
        'shownArgs',
        'shownArgv',
        'shownValue',
      ].sort(),
    );
  });

  it('re-exports of the store only what its own API takes and throws (and the variable its broker reads), and no ./records entry (that is @harness/store/records)', async () => {
    const store = await import('@harness/store');
    const host: Record<string, unknown> = await import('../src/index');
    const shared = Object.keys(store).filter((name) => name in host);
    expect(shared.sort()).toEqual([
      'AUDIT_CHAIN_ENV',
      'StoreError',
      'StoreErrorCode',
      'describeStoreTarget',
      'postgresTargetFromEnv',
    ]);
    for (const name of shared) expect(host[name]).toBe(store[name as keyof typeof store]);
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(Object.keys(pkg.exports)).toEqual(['.', './internal', './operator', './package.json']);
  });
});
