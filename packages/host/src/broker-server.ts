// A broker's server: its socket claimed and bound, each connection admitted by its peer and then
// served through the line server of `@harness/protocol/server`, and its orderly close. What a
// request does is broker.ts's.
import { unlinkSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { type LineHandler, type ServeLinesOptions, serveLines } from '@harness/protocol/server';
import { claimSocketPath, listenPrivately } from './broker-socket';
import { connectionRefusal, type PeerPolicy } from './peer';

/** A running broker. */
export interface BrokerServer {
  /** The Unix socket the broker listens on. */
  readonly socketPath: string;
  /** Stops accepting, waits for calls in flight, removes the socket. Idempotent. */
  close(): Promise<void>;
}

/**
 * Options of {@link serveBroker}: the per-connection limits of the line server (the defaults suit
 * every client; tests lower them to reach the limits with little traffic), who may connect, and how
 * often a run that asked for progress hears of it.
 */
export interface BrokerOptions extends Omit<ServeLinesOptions<Socket>, 'admit'> {
  /**
   * Who may connect: each connection's peer process is looked up before any of its requests is
   * read, and one of another user, inside a sandbox or of a command this broker runs is answered
   * `forbidden` and closed (docs/security.md). Absent: every connection is served.
   */
  readonly peers?: PeerPolicy;
  /** Told, once, when a connection's peer cannot be looked up here (it is served). */
  readonly onPeerUnknown?: (reason: string) => void;
  /**
   * How often a run that asked for progress gets a progress line, the first once it has been in
   * flight this long (default `PROGRESS_INTERVAL_MS`, 2 s). Tests lower it.
   */
  readonly progressEveryMs?: number;
}

/** Decides each connection by its peer process; a peer that cannot be looked up is served, said once. */
function peerAdmission(
  policy: PeerPolicy,
  onPeerUnknown: ((reason: string) => void) | undefined,
): (socket: Socket) => Promise<string | undefined> {
  let told = false;
  const unknown = (reason: string): void => {
    if (told) return;
    told = true;
    onPeerUnknown?.(reason);
  };
  return (socket) => connectionRefusal(socket, policy, unknown);
}

/**
 * Listens at `socketPath` (mode 0600, newline-delimited JSON, loom-broker/2) and serves each admitted
 * connection through the session `handler` gives for it.
 */
export async function startBrokerServer(
  socketPath: string,
  options: BrokerOptions,
  handler: LineHandler,
): Promise<BrokerServer> {
  const { peers, onPeerUnknown, progressEveryMs: _progress, ...limits } = options;
  await claimSocketPath(socketPath);
  const lines = serveLines<Socket>(handler, {
    ...limits,
    ...(peers === undefined ? {} : { admit: peerAdmission(peers, onPeerUnknown) }),
  });
  const server = createServer((socket) => lines.serve(socket));
  await listenPrivately(server, socketPath);

  let closing: Promise<void> | undefined;
  return {
    socketPath,
    close() {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await lines.close();
        await stopped;
        try {
          unlinkSync(socketPath);
        } catch {
          // Already gone: server.close removes it on some platforms.
        }
      })();
      return closing;
    },
  };
}
