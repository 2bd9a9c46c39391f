// Servers that never become usable: each start fails with one clear message naming the server,
// the process is ended, and nothing of the spec's environment is echoed.
import { LINUX, needs, until } from '@harness/test-utils';
import { expect } from 'vitest';
import { createServerClient, type ServerSpec } from '../src/index';
import { FIXTURES, fixtureSpec, gone } from './helpers';

/** Starts `spec`, answers its listing outcome and the pid it had, and closes the client. */
async function start(spec: ServerSpec) {
  const client = createServerClient(spec);
  try {
    const listing = client.tools();
    const pid = await until(() => client.state().pid ?? (client.state().state === 'failed' && -1), 'a pid');
    return { listing: await listing, pid, state: client.state(), logs: client.logs() };
  } finally {
    await client.close();
  }
}

const SECRET = 'sk-do-not-echo-0123456789';

needs(LINUX).describe('a server that cannot start', () => {
  needs(LINUX).it(
    'fails a server that never answers initialize at its start timeout, naming it, and kills it',
    async () => {
      const { listing, pid, state } = await start(
        fixtureSpec('mute', 'silent-server.mjs', { startTimeoutMs: 500, env: { TOKEN: SECRET } }),
      );
      expect(listing).toEqual({
        ok: false,
        message: 'server mute did not answer initialize and tools/list within 500 ms (startTimeoutMs)',
      });
      expect(state).toMatchObject({ state: 'failed', error: listing.ok ? '' : listing.message });
      await until(() => gone(pid), 'the silent server to be killed');
    },
  );

  needs(LINUX).it(
    'fails a server that prints a non-JSON-RPC line on stdout at once, naming it, without echoing the line',
    async () => {
      const { listing, pid, logs } = await start(
        fixtureSpec('chatty', 'garbage-server.mjs', { startTimeoutMs: 10_000 }),
      );
      expect(listing.ok).toBe(false);
      if (listing.ok) return;
      expect(listing.message).toContain(
        'server chatty printed a line on stdout that is not a JSON-RPC message',
      );
      expect(listing.message).not.toContain('Welcome');
      expect(logs).toContain('not JSON-RPC');
      await until(() => gone(pid), 'the garbage server to be killed');
    },
  );

  needs(LINUX).it(
    'fails a server that exits at once with its exit code and its last stderr lines',
    async () => {
      const { listing, logs } = await start(
        fixtureSpec('quitter', 'exit-server.mjs', { env: { TOKEN: SECRET } }),
      );
      expect(listing.ok).toBe(false);
      if (listing.ok) return;
      // Its own words, not the write harness could not make to its closed stdin (EPIPE).
      expect(listing.message).toMatch(
        /^server quitter exited with code 3; last stderr: exit-server: config file \/etc\/nowhere.toml not found/,
      );
      expect(logs).not.toContain('EPIPE');
      expect(listing.message).not.toContain(SECRET);
    },
  );

  needs(LINUX).it(
    "names Node's own error when a server's program is not there, not the crash report's last lines",
    async () => {
      const spec = fixtureSpec('missing', 'exit-server.mjs');
      const missing = `${FIXTURES}no-such-server.mjs`;
      if (spec.transport.kind !== 'stdio') throw new Error('a stdio fixture');
      const { listing, logs } = await start({
        ...spec,
        transport: { ...spec.transport, command: [process.execPath, missing] },
      });
      // What the log holds ends in the dump, the blank line and the version line.
      expect(logs.trimEnd().split('\n').at(-1)).toMatch(/^Node\.js v\d/);
      expect(listing.ok).toBe(false);
      if (listing.ok) return;
      expect(listing.message).toBe(
        `server missing exited with code 1; last stderr: Error: Cannot find module '${missing}' before it was ready`,
      );
    },
  );

  needs(LINUX).it(
    'fails a server whose listing is over maxListingBytes, naming it and the bound',
    async () => {
      const { listing } = await start(
        fixtureSpec('sprawl', 'probe-server.mjs', {
          maxListingBytes: 16 * 1024,
          env: { PROBE_EXTRA_TOOLS: '100' },
        }),
      );
      expect(listing).toEqual({
        ok: false,
        message:
          'server sprawl listed more than 16384 bytes of tools (maxListingBytes); harness takes no listing that large',
      });
    },
  );

  needs(LINUX).it(
    'fails a server whose program does not exist, naming it, and waits out the backoff before trying again',
    async () => {
      const spec: ServerSpec = {
        id: 'ghost',
        transport: {
          kind: 'stdio',
          command: ['no-such-mcp-server'],
          env: { PATH: '/usr/bin:/bin' },
          cwd: '/',
          sandbox: null,
        },
        startTimeoutMs: 5_000,
      };
      const client = createServerClient(spec);
      const first = await client.tools();
      expect(first.ok).toBe(false);
      if (!first.ok) expect(first.message).toMatch(/^server ghost failed to start: .*no-such-mcp-server/);
      const second = await client.tools();
      expect(second.ok).toBe(false);
      if (!second.ok) expect(second.message).toMatch(/the next start attempt is in \d+ ms/);
      expect(client.state().restarts).toBe(0);
      await client.close();
    },
  );
});
