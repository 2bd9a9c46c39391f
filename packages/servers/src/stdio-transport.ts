// An SDK Transport over a server process harness spawns itself (the SDK's StdioClientTransport
// cannot hand bubblewrap its seccomp program on fd 3): newline-delimited JSON-RPC on stdin and
// stdout, stderr into a bounded ring, and a close that ends the server's whole process group.
import type { ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { LogRing } from './logs';
import { type SpawnedServer, signalGroup } from './spawn';

/** How long a closing server has between SIGTERM and SIGKILL to its group. */
const KILL_GRACE_MS = 1_000;
/** How long an exited server's stderr may take to drain before the close is reported. */
const DRAIN_MS = 200;

/** Why the transport failed in a way a caller reports by kind. */
export class TransportFault extends Error {
  constructor(
    readonly kind: 'garbage' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

/** A {@link Transport} over one spawned server process. */
export class ProcessTransport implements Transport {
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onmessage?: Transport['onmessage'];

  private server: SpawnedServer | undefined;
  private readonly buffer: ReadBuffer;
  private closed = false;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private exited: Promise<void> | undefined;

  constructor(
    private readonly id: string,
    private readonly spawnServer: () => SpawnedServer,
    private readonly logs: LogRing,
    maxMessageBytes: number,
  ) {
    this.buffer = new ReadBuffer({ maxBufferSize: maxMessageBytes });
  }

  /** The server process's pid (its process group's id), once spawned. */
  /**
   * The server's stderr (it goes to the log ring). With {@link pid}, what tells the SDK's version
   * negotiation that this is a process on stdio: a server that stays silent on `server/discover`
   * is then a 2025 one, not an outage.
   */
  get stderr(): NodeJS.ReadableStream | null {
    return this.server?.child.stderr ?? null;
  }

  get pid(): number | undefined {
    return this.server?.child.pid;
  }

  get confinement(): SpawnedServer['confinement'] | undefined {
    return this.server?.confinement;
  }

  /** How the process ended, in words (`exited with code 1`), or undefined while it runs. */
  exitDescription(): string | undefined {
    if (this.exit === undefined) return undefined;
    return this.exit.signal !== null
      ? `was killed by ${this.exit.signal}`
      : `exited with code ${this.exit.code}`;
  }

  async start(): Promise<void> {
    const server = this.spawnServer();
    this.server = server;
    const child = server.child;
    child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.logs.write(chunk));
    // EPIPE: the server closed its stdin, by exiting; its exit and its stderr say why, and the
    // failed write rejects its own send, so the error is not written to the log ahead of its words.
    child.stdin?.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'EPIPE') this.onerror?.(error);
    });
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        server.release();
        this.afterDrain(child).then(() => {
          resolve();
          this.finish();
        });
      });
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', (error) => {
        server.release();
        this.exit ??= { code: null, signal: null };
        reject(new Error(`server ${this.id} could not start: ${error.message}`));
        this.finish();
      });
    });
  }

  /** Waits (briefly) for stdout and stderr to end, so the last stderr lines are in the ring. */
  private afterDrain(child: ChildProcess): Promise<void> {
    const ends = [child.stdout, child.stderr].map((stream) =>
      stream === null || stream.readableEnded
        ? Promise.resolve()
        : new Promise<void>((r) => stream.once('close', r)),
    );
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((r) => {
      timer = setTimeout(r, DRAIN_MS);
    });
    return Promise.race([Promise.all(ends).then(() => undefined), bound]).finally(() => clearTimeout(timer));
  }

  private read(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch {
      // A message past the bound cannot be framed any more: the stream is given up.
      this.fault(
        new TransportFault('too_large', `server ${this.id} sent a message over the transport's size bound`),
      );
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch {
        // ReadBuffer has consumed the line; what it held stays out of the message (it may be a secret).
        this.logs.write(`[harness] server ${this.id} printed a line on stdout that is not JSON-RPC`);
        this.onerror?.(
          new TransportFault(
            'garbage',
            `server ${this.id} printed a line on stdout that is not a JSON-RPC message (an MCP stdio server writes only JSON-RPC there; logs belong on stderr)`,
          ),
        );
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  private fault(error: TransportFault): void {
    this.onerror?.(error);
    void this.close();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.server?.child.stdin;
    if (this.closed || !stdin || stdin.destroyed) throw new Error(`server ${this.id} is not running`);
    await new Promise<void>((resolve, reject) => {
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Ends the server's whole process group: stdin closed, SIGTERM, SIGKILL after a grace. */
  async close(): Promise<void> {
    const child = this.server?.child;
    if (child?.pid === undefined || this.exited === undefined) {
      this.finish();
      return;
    }
    const pid = child.pid;
    if (this.exit === undefined) {
      child.stdin?.end();
      signalGroup(pid, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
      await this.exited;
      clearTimeout(timer);
    } else {
      await this.exited;
    }
    // The leader is gone; anything left in its group (an unconfined server's children) goes too.
    signalGroup(pid, 'SIGKILL');
  }

  /** Reports the close once, however it came. */
  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}
