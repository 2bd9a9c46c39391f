// Test scenarios shared by both host clients: a temp dir, a script file, a fake host of each kind.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@harness/test-utils';
import type { CommandsConfig } from '../../src/config';
import { createHostClient } from '../../src/host/client';
import type { HostClient } from '../../src/host/types';
import { type FakeBroker, startFakeBroker } from './fake-broker';

/** The FAKE host CLI script (see its header). */
export const FAKE_LOOM = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'fake-loom.mjs');
chmodSync(FAKE_LOOM, 0o755);

/** A manifest row, with defaults. */
export function row(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    title: `Title of ${id}`,
    help: `Help of ${id}`,
    inputs: { type: 'object', properties: {} },
    ...extra,
  };
}

/** One scripted fake host and a client of the chosen kind for it. */
export interface Scenario {
  kind: 'cli' | 'socket';
  dir: string;
  queuePath: string;
  logPath: string;
  config: CommandsConfig;
  client: HostClient;
  broker: FakeBroker | undefined;
  script(s: Record<string, unknown>): void;
  log(): Record<string, unknown>[];
  runs(): Record<string, unknown>[];
  lists(): Record<string, unknown>[];
  close(): Promise<void>;
}

/** Creates a scenario; `script` may be changed at any time and is read on every host request. */
export async function scenario(
  kind: 'cli' | 'socket',
  options: { jobIdEnvVar?: string; noBroker?: boolean; timeoutMs?: number } = {},
): Promise<Scenario> {
  const t = tempDir('harness-commands-');
  const queuePath = join(t.path, 'queue.sock');
  const logPath = join(t.path, 'log.jsonl');
  writeFileSync(logPath, '');
  const config: CommandsConfig = {
    cliPath: FAKE_LOOM,
    transport: { kind: 'broker', socketPath: queuePath, client: kind },
    timeoutMs: options.timeoutMs ?? 10_000,
    ...(options.jobIdEnvVar ? { jobIdEnvVar: options.jobIdEnvVar } : {}),
  };
  const broker = kind === 'socket' && !options.noBroker ? await startFakeBroker(queuePath) : undefined;
  const client = createHostClient(config);
  const readLog = () =>
    readFileSync(logPath, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const sc: Scenario = {
    kind,
    dir: t.path,
    queuePath,
    logPath,
    config,
    client,
    broker,
    script(s) {
      writeFileSync(
        `${queuePath}.json`,
        JSON.stringify({ log: logPath, inflightDir: join(t.path, 'inflight'), ...s }),
      );
    },
    log: readLog,
    runs: () => readLog().filter((e) => e.op === 'run'),
    lists: () => readLog().filter((e) => e.op === 'list'),
    async close() {
      await client.close();
      await broker?.close();
      t.cleanup();
    },
  };
  if (!options.noBroker) sc.script({});
  return sc;
}
