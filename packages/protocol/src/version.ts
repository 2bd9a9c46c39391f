// The protocol's name and version, and the rule that decides whether two peers can talk
// (docs/protocol.md, "Versions").

/** The broker protocol's name and version; every request and answer carries it. */
export const BROKER_PROTOCOL = 'loom-broker/2';

/** The protocol name a peer of this package speaks. */
export type BrokerProtocol = typeof BROKER_PROTOCOL;

/**
 * The compatibility rule: two peers talk only when they name exactly the same protocol. The name
 * changes only for a change an older peer would misread; additions (an optional field, a new op, a
 * new code) keep it, and every peer ignores fields it does not know. Returns `undefined` when
 * `named` is ours, otherwise a message naming both versions (`peer` says who named it, e.g.
 * "the request", "the broker").
 */
export function protocolMismatch(named: unknown, peer: string): string | undefined {
  if (named === BROKER_PROTOCOL) return undefined;
  const theirs = typeof named === 'string' ? named : 'no protocol';
  return `${peer} speaks ${theirs}; this side speaks ${BROKER_PROTOCOL}. Use a client and a broker of the same protocol version.`;
}
