// The broker's Unix socket: claiming its path (a stale socket replaced, a live one or anything else
// left alone) and listening on it privately (docs/host.md, "The broker").
import { chmodSync, lstatSync, unlinkSync } from 'node:fs';
import { connect, type Server } from 'node:net';
import { dirname } from 'node:path';
import { HostError, HostErrorCode } from './errors';
import { ensurePrivateDir } from './private-dir';

/** True when something accepts connections at `path`. */
function isLive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * Claims `socketPath` for a new broker: a stale socket left by a dead broker is removed; a live one,
 * or anything that is not a socket, is never touched (a `queue_busy` HostError names it).
 */
export async function claimSocketPath(socketPath: string): Promise<void> {
  let stat: ReturnType<typeof lstatSync> | undefined;
  try {
    stat = lstatSync(socketPath);
  } catch {
    stat = undefined;
  }
  // Before every bind: a directory another user can write is one where our socket can be swapped.
  ensurePrivateDir(dirname(socketPath));
  if (!stat) return;
  if (!stat.isSocket()) {
    throw new HostError(
      HostErrorCode.queue_busy,
      `${socketPath} exists and is not a socket; refusing to replace it. Choose another --socket path or remove the file yourself.`,
    );
  }
  if (await isLive(socketPath)) {
    throw new HostError(
      HostErrorCode.queue_busy,
      `a live broker already listens at ${socketPath}; stop it first (SIGTERM) or choose another --socket path`,
    );
  }
  try {
    unlinkSync(socketPath);
  } catch (error) {
    // Its broker removed it on closing, or another process starting here took the stale one first.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Binds `server` at `socketPath`, mode 0600 from the moment the socket exists. */
export async function listenPrivately(server: Server, socketPath: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new HostError(HostErrorCode.queue_busy, `cannot listen at ${socketPath}: ${error.message}`, {
          cause: error,
        }),
      ),
    );
    // The umask makes the socket 0600 from the moment it exists; chmod below states it again.
    const old = process.umask(0o177);
    try {
      server.listen(socketPath, () => resolve());
    } finally {
      process.umask(old);
    }
  });
  chmodSync(socketPath, 0o600);
}
