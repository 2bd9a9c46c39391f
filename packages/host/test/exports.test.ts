import { describe, expect, it } from 'vitest';

describe('public API', () => {
  it('pins the export list of @harness/host', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual(
      [
        'ANSWER_CODES',
        'APPROVAL_TTL_MS',
        'BROKER_PROTOCOL',
        'BUILTIN_IDS',
        'BUILTIN_ROWS',
        'CREDENTIALS_FILE',
        'ENVELOPE_ERROR_CODES',
        'EXIT',
        'HOST_ERROR_CODES',
        'HostError',
        'INSTANCE_FILE',
        'MAX_ARGS_BYTES',
        'MAX_COMPONENTS',
        'MAX_CONTEXT_RECEIPTS',
        'MAX_LINE_BYTES',
        'REF_KINDS',
        'STAGE_CAPACITY',
        'STORE_FILE',
        'brokerAnswerSchema',
        'brokerHello',
        'brokerList',
        'brokerRequest',
        'brokerRequestSchema',
        'brokerRun',
        'checkBroker',
        'checkServes',
        'claimQueuePath',
        'commandAnswerSchema',
        'createCommandHost',
        'decideApproval',
        'initInstance',
        'listApprovals',
        'listDirect',
        'loadPackBackend',
        'manifestRowSchema',
        'openStore',
        'openStoreTarget',
        'parseScope',
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

  it('pins the export list of @harness/host/client (the light client)', async () => {
    expect(Object.keys(await import('../src/client')).sort()).toEqual(
      [
        'ANSWER_CODES',
        'BROKER_PROTOCOL',
        'ENVELOPE_ERROR_CODES',
        'EXIT',
        'MAX_ARGS_BYTES',
        'MAX_LINE_BYTES',
        'brokerHello',
        'brokerList',
        'brokerRequest',
        'brokerRun',
      ].sort(),
    );
  });
});
