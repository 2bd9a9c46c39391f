// audit-chain: one pack-command call (`bench.noop`, running `true`) through `harness serve` over
// stdio with the audit chain on (the default: each event hashed onto its host's chain, its head
// checkpointed and signed with the instance key), against the same call through a serve whose
// broker writes its events unchained (HARNESS_AUDIT_CHAIN=off, which exists for this measurement).
// The ratio is what the chain costs a call (docs/audit.md).

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { compareEach } from '@harness/bench-utils';
import { AUDIT_CHAIN_ENV } from '@harness/host';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { benchDir, requireBin, serveStdio } from './fixture';

requireBin('audit-chain');
const offDir = benchDir();
const onDir = benchDir();
const off = await serveStdio(offDir, { extraEnv: { [AUDIT_CHAIN_ENV]: 'off' } });
const on = await serveStdio(onDir);

/** One call of bench.noop; throws unless it ran. */
async function call(client: Client): Promise<void> {
  const res = await client.callTool({
    name: 'run_read_command',
    arguments: { command: 'bench.noop', args: {} },
  });
  if (res.isError === true) throw new Error(`bench.noop failed: ${JSON.stringify(res.structuredContent)}`);
}

/** What `loom audit verify` finds in an instance: with the chain on every event is chained, off none. */
function verified(instance: string): { ok: boolean; events: number; unchained: number } {
  const loom = join(import.meta.dirname, '..', '..', 'loom', 'bin', 'loom.js');
  const out = execFileSync(process.execPath, [loom, 'audit', 'verify', '--instance', instance, '--json'], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as { ok: boolean; events: number; unchained: number };
}

try {
  await compareEach({
    anchor: {
      label: `run_read_command bench.noop (true, unconfined) through harness serve over stdio, audit chain off (${AUDIT_CHAIN_ENV}=off)`,
      fn: () => call(off.client),
    },
    subjects: [
      {
        name: 'audit-chain',
        label: 'the same call through harness serve with the audit chain on (the default)',
        fn: () => call(on.client),
        target: 1.05,
        notes:
          'per call with the chain on: each audit event canonicalized (RFC 8785), hashed (SHA-256) onto the chain, the head row updated in the same transaction; checkpoints signed every 5 minutes and at close',
      },
    ],
    rounds: 30,
    inner: 10,
    warmup: 3,
  });
} finally {
  await off.client.close();
  await on.client.close();
}
const [onFound, offFound] = [verified(onDir.instance), verified(offDir.instance)];
onDir.cleanup();
offDir.cleanup();
if (!onFound.ok || onFound.events === 0 || onFound.unchained !== 0)
  throw new Error(`the chain was not on: ${JSON.stringify(onFound)}`);
if (offFound.unchained !== offFound.events)
  throw new Error(`the chain was not off: ${JSON.stringify(offFound)}`);
