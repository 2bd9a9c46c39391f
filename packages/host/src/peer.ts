// Who is at the other end of a broker connection, on Linux: the process holding the peer socket,
// found without a native addon. `ss -xn` (iproute2, through the kernel's sock_diag) names the peer
// socket's inode; the process whose file descriptors hold that inode is looked up in /proc, newest
// processes first (a client has usually just started). Its uid, session and pid namespace decide
// whether the broker serves it (docs/security.md, "Who may talk to a broker").
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { procStatFields } from '@harness/exec/internal';

/** The process at the other end of a connection. */
export interface Peer {
  readonly pid: number;
  readonly uid: number;
  /** Its session id: a run's processes keep the session their run started (`setsid`) unless they leave it. */
  readonly sid: number;
  /** Its pid namespace (`pid:[…]`): a confined run's processes live in one of their own. */
  readonly pidNamespace: string;
  /** Its parent, grandparent, … up to pid 1. */
  readonly ancestors: readonly number[];
}

/** What the broker knows of itself to judge a peer. */
export interface PeerPolicy {
  readonly uid: number;
  readonly pidNamespace: string;
  /** Session ids (= pids) of the runs this broker started that are alive. */
  readonly runs: () => ReadonlySet<number>;
  /**
   * Resolves once no run is being started whose session is not in `runs` yet: a command that calls
   * back before its spawn reports its pid is judged after that report, not against a list without it.
   */
  readonly settled?: () => Promise<void>;
}

/** Why the connection's peer is refused, or `undefined` to serve it. */
export function peerRefusal(peer: Peer, policy: PeerPolicy): string | undefined {
  if (peer.uid !== policy.uid)
    return `the connecting process (pid ${peer.pid}) runs as uid ${peer.uid}, not ${policy.uid}`;
  if (peer.pidNamespace !== policy.pidNamespace) {
    return `the connecting process (pid ${peer.pid}) is inside a sandbox (another pid namespace); a confined command may not call its broker`;
  }
  const runs = policy.runs();
  const run =
    [peer.pid, ...peer.ancestors].find((pid) => runs.has(pid)) ?? (runs.has(peer.sid) ? peer.sid : undefined);
  if (run !== undefined) {
    return `the connecting process (pid ${peer.pid}) belongs to a command this broker is running (pid ${run}); a command may not call its own broker`;
  }
  return undefined;
}

function stat(pid: number): { ppid: number; sid: number } | undefined {
  // From the state on: ppid is field 4, the session field 6.
  const fields = procStatFields(pid);
  return fields === undefined ? undefined : { ppid: Number(fields[1]), sid: Number(fields[3]) };
}

function describe(pid: number): Peer | undefined {
  const own = stat(pid);
  if (own === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
    const pidNamespace = readlinkSync(`/proc/${pid}/ns/pid`);
    const ancestors: number[] = [];
    for (let p = own.ppid; p > 1 && ancestors.length < 256; p = stat(p)?.ppid ?? 0) ancestors.push(p);
    return { pid, uid, sid: own.sid, pidNamespace, ancestors };
  } catch {
    return undefined;
  }
}

/**
 * The pid holding socket inode `inode`: this process, then the newest processes first (a client has
 * usually just started); `undefined` when none is seen.
 */
function holder(inode: string): number | undefined {
  const link = `socket:[${inode}]`;
  // This process first: a server often talks to the broker it embeds through the socket.
  const pids = [
    process.pid,
    ...readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => pid !== process.pid)
      .sort((a, b) => b - a),
  ];
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

/**
 * The peer inode of the connection whose own inode is `ownInode`: `missing` when `ss` lists no such
 * socket (a connection's accepted end belongs to the network namespace of the process that
 * connected, so one from another namespace, a sandbox's, is not among ours), `undefined` when `ss`
 * cannot be run or names no peer.
 */
function peerInode(ownInode: string): Promise<string | 'missing' | undefined> {
  return new Promise((resolve) => {
    execFile(
      'ss',
      ['-xnH'],
      { env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }, timeout: 10_000 },
      (error, stdout) => {
        if (error) {
          resolve(undefined);
          return;
        }
        // `u_str ESTAB 0 0 <local address> <local inode> <peer address> <peer inode>`
        for (const line of stdout.split('\n')) {
          const fields = line.trim().split(/\s+/);
          if (fields.length >= 8 && fields.at(-3) === ownInode) {
            const peer = fields.at(-1);
            resolve(peer === '0' ? undefined : peer);
            return;
          }
        }
        resolve('missing');
      },
    );
  });
}

function socketInode(socket: Socket): string | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (fd === undefined || fd < 0) return undefined;
  try {
    return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1];
  } catch {
    return undefined;
  }
}

let works: Promise<boolean> | undefined;

/**
 * Whether `ss` names the peers of this process's own connections: checked once per process on a
 * connection to itself through a private directory, so a missing `ss` or kernel module is known
 * before any real connection is judged by it.
 */
export function attributionWorks(): Promise<boolean> {
  works ??= (async () => {
    if (process.platform !== 'linux') return false;
    const dir = mkdtempSync(join(tmpdir(), 'harness-peer-'));
    const path = join(dir, 's');
    const server = createServer();
    try {
      const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
      await new Promise<void>((resolve, reject) => server.listen(path, resolve).once('error', reject));
      const client = connect(path);
      const socket = await accepted;
      const inode = socketInode(socket);
      const peer = inode === undefined ? undefined : await peerInode(inode);
      const found = peer !== undefined && peer !== 'missing' && holder(peer) === process.pid;
      client.destroy();
      socket.destroy();
      return found;
    } catch {
      return false;
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  })();
  return works;
}

/** Whether this machine can attribute a connection: Linux with `ss` (iproute2). */
export type PeerLookup =
  | { readonly found: true; readonly peer: Peer }
  /**
   * `attributable`: this machine can name peers, but no process holds this one's end (it exited,
   * or cannot be read): refused. Otherwise the lookup itself is unavailable here: served.
   */
  | { readonly found: false; readonly attributable: boolean; readonly reason: string };

/** Finds the process at the other end of `socket` (a Unix socket the broker accepted). */
export async function findPeer(socket: Socket): Promise<PeerLookup> {
  if (!(await attributionWorks())) {
    return {
      found: false,
      attributable: false,
      reason:
        process.platform === 'linux'
          ? 'ss (iproute2, with the kernel unix_diag module) cannot name the peer of a connection here'
          : `no peer lookup on ${process.platform}`,
    };
  }
  const refused = (reason: string): PeerLookup => ({ found: false, attributable: true, reason });
  const own = socketInode(socket);
  if (own === undefined) return refused('the connection closed');
  const inode = await peerInode(own);
  if (inode === 'missing') {
    return refused('the connecting process is in another network namespace (inside a sandbox)');
  }
  const pid = inode === undefined ? undefined : holder(inode);
  const peer = pid === undefined ? undefined : describe(pid);
  if (peer === undefined) return refused('no process this user can see holds the other end');
  return { found: true, peer };
}

/**
 * Whether socket inode `inode` is one of this process's network namespace: `/proc/self/net/unix`
 * lists exactly those (`undefined` where it cannot be read). The accepted end of a connection
 * belongs to the namespace of the process that connected, so `false` means a sandbox's process.
 */
function inOwnNamespace(inode: string): boolean | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/self/net/unix', 'latin1');
  } catch {
    return undefined;
  }
  // `Num RefCount Protocol Flags Type St Inode Path`: the inode is the seventh field.
  for (const line of text.split('\n')) {
    if (line.split(/\s+/, 7)[6] === inode) return true;
  }
  return false;
}

/**
 * Why the broker must not serve the connection on `socket`, or `undefined` to serve it. Cheap
 * first: a connection from another network namespace is refused after one read of
 * `/proc/self/net/unix`, and while the broker runs no command (none started, none starting)
 * nothing else can be one of its commands, so the costlier lookup of the peer process (an `ss` run and a `/proc` scan) is made
 * only while commands run. `unknown` is told when that lookup is unavailable here (served).
 */
export async function connectionRefusal(
  socket: Socket,
  policy: PeerPolicy,
  unknown: (reason: string) => void,
): Promise<string | undefined> {
  if (process.platform !== 'linux') {
    unknown(`no peer lookup on ${process.platform}`);
    return undefined;
  }
  const own = socketInode(socket);
  if (own === undefined) return 'the connection closed';
  if (inOwnNamespace(own) === false) {
    return 'the connecting process is in another network namespace (inside a sandbox)';
  }
  if (policy.settled) await policy.settled();
  if (policy.runs().size === 0) return undefined;
  const lookup = await findPeer(socket);
  if (lookup.found) return peerRefusal(lookup.peer, policy);
  if (lookup.attributable) return lookup.reason;
  unknown(lookup.reason);
  return undefined;
}

/** The broker's own identity, for {@link PeerPolicy}. */
export function ownIdentity(): { uid: number; pidNamespace: string } | undefined {
  try {
    return { uid: process.getuid?.() ?? -1, pidNamespace: readlinkSync('/proc/self/ns/pid') };
  } catch {
    return undefined;
  }
}
