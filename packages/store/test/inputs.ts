// What the store tests write: one audit event and one compose request, each a fixed default that a
// test overrides where it matters.
import type { AuditEventInput, ComposeInput } from '../src/types';

/** An agent's successful `text.echo` call in run r1, with `over` applied. */
export const auditEvent = (over: Partial<AuditEventInput> = {}): AuditEventInput => ({
  run: 'r1',
  actor: 'agent:me',
  job: null,
  command: 'text.echo',
  action: 'command:call:text:echo',
  phase: 'run',
  outcome: 'ok',
  code: 'ok',
  reason: null,
  payload: {},
  ...over,
});

/** One component composed by agent:me in run r1 (request req-1), with `over` applied. */
export const composeInput = (over: Partial<ComposeInput> = {}): ComposeInput => ({
  namespace: 'r1/agent:me',
  actor: 'agent:me',
  run: 'r1',
  requestId: 'req-1',
  components: [{ ref: 'note:a' }],
  argsHash: 'h1',
  ...over,
});
