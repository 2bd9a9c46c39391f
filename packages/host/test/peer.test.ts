// Who may talk to a broker: the rule over a peer, and the lookup of a real one.

import { readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { LINUX, needs, tempDir } from '@harness/test-utils';
import { describe, expect, it } from 'vitest';
import {
  attributionWorks,
  connectionRefusal,
  findPeer,
  ownIdentity,
  type Peer,
  peerRefusal,
} from '../src/peer';
import { StartingSpawns } from '../src/starting-spawns';

const self = ownIdentity() ?? { uid: 0, pidNamespace: 'pid:[1]' };
const peer: Peer = {
  pid: 4242,
  uid: self.uid,
  sid: 4000,
  pidNamespace: self.pidNamespace,
  ancestors: [4100, 4000, 900],
};
const policy = (runs: number[] = []) => ({ ...self, runs: () => new Set(runs) });

describe('peerRefusal', () => {
  it('serves a process of the same user, outside any sandbox and outside its runs [SEC-16]', () => {
    expect(peerRefusal(peer, policy([77]))).toBeUndefined();
  });

  it('refuses a process of another user [SEC-16]', () => {
    expect(peerRefusal({ ...peer, uid: self.uid + 1 }, policy())).toBe(
      `the connecting process (pid 4242) runs as uid ${self.uid + 1}, not ${self.uid}`,
    );
  });

  it('refuses a process in another pid namespace [SEC-16]', () => {
    expect(peerRefusal({ ...peer, pidNamespace: 'pid:[1]' }, policy())).toMatch(/is inside a sandbox/);
  });

  it('refuses a descendant of a running command, and one still in its session [SEC-16]', () => {
    expect(peerRefusal(peer, policy([4100]))).toMatch(
      /belongs to a command this broker is running \(pid 4100\)/,
    );
    expect(peerRefusal({ ...peer, ancestors: [1] }, policy([4000]))).toMatch(/\(pid 4000\)/);
  });
});

needs(LINUX).describe('findPeer', () => {
  it('names this process as the peer of its own connection [SEC-16]', async () => {
    if (!(await attributionWorks())) {
      console.warn(
        'peer lookup unavailable here (ss from iproute2 is missing); the broker serves connections unchecked',
      );
      return;
    }
    const dir = tempDir('host-peer-');
    const server = createServer();
    try {
      const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
      await new Promise<void>((resolve) => server.listen(join(dir.path, 's'), resolve));
      const client = connect(join(dir.path, 's'));
      const found = await findPeer(await accepted);
      client.destroy();
      expect(found).toMatchObject({
        found: true,
        peer: { pid: process.pid, uid: self.uid, pidNamespace: self.pidNamespace },
      });
    } finally {
      server.close();
      dir.cleanup();
    }
  });

  it('serves its own user unlooked-up while no command runs, and names the peer once one does [SEC-16]', async () => {
    const dir = tempDir('host-peer-');
    const server = createServer();
    try {
      await new Promise<void>((resolve) => server.listen(join(dir.path, 's'), resolve));
      const judge = async (runs: number[]) => {
        const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
        const client = connect(join(dir.path, 's'));
        const refusal = await connectionRefusal(await accepted, policy(runs), () => {});
        client.destroy();
        return refusal;
      };
      expect(await judge([])).toBeUndefined();
      if (!(await attributionWorks())) return;
      // This process's own session stands in for a running command's.
      const stat = readFileSync('/proc/self/stat', 'latin1');
      const sid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
      expect(await judge([sid])).toMatch(/belongs to a command this broker is running/);
    } finally {
      server.close();
      dir.cleanup();
    }
  });
  it('judges a connection made while a command is starting once its pid is known, so a fast callback is refused [SEC-16]', async () => {
    if (!(await attributionWorks())) return;
    const dir = tempDir('host-peer-');
    const server = createServer();
    try {
      await new Promise<void>((resolve) => server.listen(join(dir.path, 's'), resolve));
      // This process's own session stands in for the starting command's, reported after it connects.
      const stat = readFileSync('/proc/self/stat', 'latin1');
      const sid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
      const judge = async (settled: boolean) => {
        const runs = new Set<number>();
        const starting = new StartingSpawns();
        const started = starting.begin();
        const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
        const client = connect(join(dir.path, 's'));
        const at = { ...self, runs: () => runs, ...(settled ? { settled: () => starting.settled() } : {}) };
        const refusal = connectionRefusal(await accepted, at, () => {});
        // The spawn's pid arrives as a message from the spawner process would: in a later turn.
        await new Promise((resolve) => setImmediate(resolve));
        runs.add(sid);
        started();
        const answer = await refusal;
        client.destroy();
        return answer;
      };
      // Without waiting for the start, the list is still empty when the connection is judged: served.
      expect(await judge(false)).toBeUndefined();
      expect(await judge(true)).toMatch(/belongs to a command this broker is running/);
    } finally {
      server.close();
      dir.cleanup();
    }
  });
});
