import { describe, expect, it } from 'vitest';

describe('public surface', () => {
  it('pins the root export list', async () => {
    expect(Object.keys(await import('../src/index')).sort()).toEqual(
      [
        'ANSWER_CODES',
        'ANSWER_KINDS',
        'ANSWER_TOO_LARGE',
        'BROKER_PROTOCOL',
        'ENVELOPE_ERROR_CODES',
        'EXIT',
        'EXIT_FAILURE_WORDS',
        'EXIT_FAILURES',
        'HELD_REASONS',
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
        'SPAWN_STATUSES',
        'answerTooLarge',
        'encodeLine',
        'exceedsBytes',
        'isExitFailure',
        'isLoomId',
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

  it('pins the schema subpath export list', async () => {
    expect(Object.keys(await import('../src/schema')).sort()).toEqual(
      [
        'answerBodies',
        'brokerAnswerSchema',
        'brokerProgressSchema',
        'brokerRequestSchema',
        'commandAnswerSchema',
        'manifestRowSchema',
        'parseAnswer',
        'parseRequest',
      ].sort(),
    );
  });

  it('pins the server subpath export list', async () => {
    expect(Object.keys(await import('../src/server')).sort()).toEqual(['serveLines']);
  });

  it('keeps the root entry and the client free of zod at run time: the loom CLI per call loads only them', async () => {
    const { readFileSync } = await import('node:fs');
    const dir = new URL('../src/', import.meta.url);
    // The modules a module loads at run time: `import type` and `export type` are erased.
    const loads = (file: string): string[] =>
      [
        ...readFileSync(new URL(file, dir), 'utf8').matchAll(
          /^(?:import|export) (?!type )[^;]*? from '([^']+)';/gms,
        ),
      ].map((m) => m[1] as string);
    const reached = new Set<string>();
    const visit = (file: string): void => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const spec of loads(file)) if (spec.startsWith('./')) visit(`${spec.slice(2)}.ts`);
    };
    visit('index.ts');
    visit('client.ts');
    expect([...reached].filter((file) => loads(file).includes('zod'))).toEqual([]);
    expect(reached).not.toContain('wire.ts');
  });

  it('keeps the root entry free of Node-only imports', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const dir = new URL('../src/', import.meta.url);
    // The client is the one Node-only entry; the line server drives any socket of its shape.
    for (const file of readdirSync(dir)) {
      if (file === 'client.ts') continue;
      expect(readFileSync(new URL(file, dir), 'utf8'), file).not.toMatch(/from 'node:/);
    }
  });
});
