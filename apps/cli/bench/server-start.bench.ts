// server-start: a confined stdio MCP server (server-everything, with the sandbox the workspace gives a
// server by default: read-only filesystem minus the deny list, no network, no Unix sockets, a private
// /tmp) from its start to its first tools/list, against the same server started unconfined. Each
// sample starts a fresh client, reads the listing and closes the server (its whole process tree).
import { join } from 'node:path';
import { compare } from '@harness/bench-utils';
import { detectSandbox, type SandboxPolicy } from '@harness/exec';
import { formatIssue } from '@harness/packs';
import { createServerClient } from '@harness/servers';
import { EVERYTHING } from '@harness/test-utils';
import { loadWorkspace } from '@harness/workspace';
import { benchDir } from './fixture';
import { requireServers, serversWorkspace } from './servers-fixture';

const [everything] = (await requireServers('server-start', [EVERYTHING])) as [string];
const detection = detectSandbox();
if (!detection.available) {
  process.stdout.write(`server-start skipped: no sandbox here (${detection.reason})\n`);
  process.exit(0);
}
const dir = benchDir(serversWorkspace([{ id: 'everything', args: [everything] }]));
// The home a confined server hides is the broker's; the servers' install lives in this user's cache,
// so the bench runs with a home of its own, as `harness serve` does in the other server benchmarks.
process.env.HOME = join(dir.root, 'home');
const loaded = await loadWorkspace({ file: dir.workspace }, { probe: false });
if (!loaded.ok) throw new Error(loaded.issues.map(formatIssue).join('\n'));
const server = loaded.workspace.servers[0];
if (server?.transport.kind !== 'stdio' || server.sandbox === null) {
  throw new Error('the bench server is not a confined stdio server');
}
const { command, cwd } = server.transport;
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', PWD: cwd };

/** Starts the server, reads its listing, closes it. */
async function startAndList(sandbox: SandboxPolicy | null): Promise<void> {
  const client = createServerClient({
    id: 'everything',
    transport: { kind: 'stdio', command, cwd, env, sandbox },
    startTimeoutMs: 30_000,
  });
  try {
    const listing = await client.tools();
    if (!listing.ok) throw new Error(listing.message);
  } finally {
    await client.close();
  }
}

try {
  await compare({
    name: 'server-start',
    subject: {
      label: `server-everything confined (${detection.mechanism}, the default server sandbox): start to its first tools/list, then closed`,
      fn: () => startAndList(server.sandbox),
    },
    anchor: {
      label: 'server-everything unconfined: start to its first tools/list, then closed',
      fn: () => startAndList(null),
    },
    rounds: 15,
    inner: 1,
    warmup: 2,
    target: 1.3,
    notes: 'Both sides start the same argv through @harness/servers; only the sandbox differs.',
  });
} finally {
  dir.cleanup();
}
