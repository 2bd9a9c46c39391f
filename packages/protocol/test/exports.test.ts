import { describe, expect, it } from 'vitest';

describe('public surface', () => {
  it('pins the root export list', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual(
      [
        'ANSWER_CODES',
        'ANSWER_TOO_LARGE',
        'BROKER_PROTOCOL',
        'ENVELOPE_ERROR_CODES',
        'EXIT',
        'LineReader',
        'LOOM_ID_PATTERN',
        'MAX_ANSWER_LINE_BYTES',
        'MAX_ARGS_BYTES',
        'MAX_COMPOSE_COMPONENTS',
        'MAX_CONTEXT_RECEIPTS',
        'MAX_INFLIGHT_PER_CONNECTION',
        'MAX_PENDING_REQUESTS',
        'MAX_REQUEST_LINE_BYTES',
        'PROGRESS_INTERVAL_MS',
        'QUEUE_PATH_DEPRECATION',
        'REF_KINDS',
        'answerTooLarge',
        'brokerAnswerSchema',
        'brokerProgressSchema',
        'brokerRequestSchema',
        'commandAnswerSchema',
        'encodeLine',
        'exceedsBytes',
        'isLoomId',
        'manifestRowSchema',
        'protocolMismatch',
        'queuePathDeprecation',
        'utf8Length',
        'warnQueuePath',
      ].sort(),
    );
  });

  it('pins the client subpath export list', async () => {
    expect(Object.keys(await import('../src/client')).sort()).toEqual(
      ['brokerHello', 'brokerList', 'brokerRequest', 'brokerRun', 'createBrokerClient'].sort(),
    );
  });

  it('keeps the root entry free of Node-only imports', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const dir = new URL('../src/', import.meta.url);
    for (const file of readdirSync(dir)) {
      if (file === 'client.ts') continue;
      expect(readFileSync(new URL(file, dir), 'utf8'), file).not.toMatch(/from 'node:/);
    }
  });
});
