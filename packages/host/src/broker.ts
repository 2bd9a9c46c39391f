// The broker: loom-broker/2 on a Unix socket, each request's op mapped to the command host. The
// socket, the peers and the line server are broker-server.ts's; the framing, the parsing
// (`parseRequest`) and the scheduling of lines are `serveLines`' (`@harness/protocol/server`).
import {
  BROKER_PROTOCOL,
  type BrokerReply,
  type BrokerRequest,
  type ListRequest,
  PROGRESS_INTERVAL_MS,
  type RunRequest,
} from '@harness/protocol';
import type { LineConnection } from '@harness/protocol/server';
import { type BrokerOptions, type BrokerServer, startBrokerServer } from './broker-server';
import type { CommandHost } from './host';
import { RunsInFlight } from './runs-in-flight';

export type { BrokerOptions, BrokerServer } from './broker-server';

/**
 * Serves `host` on a Unix socket at `socketPath` (mode 0600, newline-delimited JSON, loom-broker/2).
 * Every request is parsed against the protocol's schema before it reaches the host; the host stamps
 * the actor and run, so whatever a request names as actor or run is never read. A client that
 * sends requests without reading the answers is paused (see {@link BrokerOptions}), so the answers
 * held for one connection stay bounded and other connections are unaffected.
 *
 * `host` may be a function giving the host to serve with: each request is answered by the host it
 * gives when the request starts, so a broker can switch to an edited workspace while calls in
 * flight finish on the host they started on (docs/host.md, "Editing the workspace while the broker runs").
 */
export function serveBroker(
  host: CommandHost | (() => CommandHost),
  socketPath: string,
  options: BrokerOptions = {},
): Promise<BrokerServer> {
  const progressEveryMs = Math.max(1, options.progressEveryMs ?? PROGRESS_INTERVAL_MS);
  const hostNow = typeof host === 'function' ? host : () => host;
  return startBrokerServer(socketPath, options, (connection) => {
    const runs = new RunsInFlight(progressEveryMs, (id, progress) => connection.progress(id, progress));
    return {
      answer: (request) => answer(hostNow(), runs, connection, request),
      // Answered `busy` while it waited: a cancel that named it will never meet it.
      dropped: (id) => runs.forget(id),
    };
  });
}

const ok = (result: Extract<BrokerReply, { ok: true }>['result']): BrokerReply => ({ ok: true, result });

/** The host's answer to one request of a connection. */
async function answer(
  host: CommandHost,
  runs: RunsInFlight,
  connection: LineConnection,
  request: BrokerRequest,
): Promise<BrokerReply> {
  switch (request.op) {
    case 'hello':
      return ok({ protocol: BROKER_PROTOCOL, run: host.scope.run, agent: host.scope.actor });
    case 'list': {
      const listed = await host.list(listOf(request));
      return 'forbidden' in listed
        ? { ok: false, error: { code: 'forbidden', message: listed.forbidden } }
        : ok(listed);
    }
    case 'cancel':
      return ok({ cancelled: runs.cancel(request.target, connection.queued) });
    case 'run':
      return ok(await run(host, runs, request));
  }
}

/** What a `list` asks of the host. */
function listOf({ jobId, ifNoneMatch }: ListRequest): Parameters<CommandHost['list']>[0] {
  return { ...(jobId === undefined ? {} : { jobId }), ...(ifNoneMatch === undefined ? {} : { ifNoneMatch }) };
}

/** Runs one call as the broker's agent, its cancel signal and progress tracked for the connection. */
async function run(host: CommandHost, runs: RunsInFlight, request: RunRequest) {
  const call = runs.begin(request.id, request.progress === true);
  try {
    // The parsed request itself reaches the host (parsing dropped every field it does not name);
    // the host reads only the call's fields of it, never its id or its progress flag.
    return await host.run(request, call.control);
  } finally {
    call.end();
  }
}
