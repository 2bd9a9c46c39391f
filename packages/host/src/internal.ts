// @harness/host/internal: the parts `startBroker` assembles a broker from (the command layer, the
// pack backend, scope resolution and the socket server), for an embedder that assembles one itself,
// e.g. to set the socket server's limits. Unstable: any release may change or remove a name here
// without notice (docs/host.md, "Internals"). The stable API is the root entry.

export type { BrokerOptions } from './broker';
export { serveBroker } from './broker';
export type {
  CommandHost,
  CommandHostOptions,
  PackBackend,
  PackCallContext,
  PackOutcome,
  RunControl,
  Transport,
} from './host';
export { createCommandHost } from './host';
export { loadPackBackend } from './packs-backend';
export type { ScopeWorkspace } from './scope';
export { parseScope, readScopeFile, resolveScope } from './scope';
export type { PinStore, ServerReport } from './servers/backend';
export { serverLogFile } from './servers/backend';
export { definitionHash, definitionJson } from './servers/definition';
export type { DiffLine } from './servers/definition-diff';
export { definitionDiff } from './servers/definition-diff';
export type { HeldTool } from './servers/review';
export { definitionTextHash, heldFor, heldTools } from './servers/review';
export type { QuarantinedTool, ServedTool } from './servers/rows';
