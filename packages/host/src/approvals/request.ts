// Holding a call for a person's approval. Packs' governance gate is a synchronous, pure function
// of the workspace, the call and an approval store; the host's store is asynchronous. The gate's
// decision is split from the store's take: the gate first runs against a probe that only notes
// what it would ask; when it asks for an approval, the host takes one (./consume.ts) or records a
// request in one store transaction, and the gate runs again with that answer in hand. The decision
// stays the gate's; the single use stays the store's.

import type { ApprovalPreviewOutput } from '@harness/store';
import {
  type ApprovalKey,
  type ApprovalRequestInfo,
  type ApprovalStore,
  type DecideInput,
  type Decision,
  decide,
  type Workspace,
} from '@harness/workspace';
import { canonicalJson, sha256 } from '../canonical';
import type { PackCallContext } from '../command/types';
import { takeApproval } from './consume';
import { requestLifetimeMs } from './expiry';
import type { ApprovalPreview } from './preview';

/**
 * The store key of one approval key: what "an identical call" means across hosts (the command, the
 * agent and the exact arguments). A call that names its client session binds the key to it:
 * another session's identical call has a key of its own, so it asks a person anew and never
 * consumes this one's approval.
 */
const storeKey = (k: ApprovalKey, session: string | undefined): string =>
  sha256(
    canonicalJson(
      session === undefined
        ? [k.commandId, k.agent, k.argsDigest]
        : [k.commandId, k.agent, k.argsDigest, { session }],
    ),
  );

/** What the gate asked of the approval store, when it asked: a take, or a take and a request. */
type Asked = { key: ApprovalKey; info?: ApprovalRequestInfo };

/** The gate's decision with no approval in hand, and what it asked of the approval store. */
function probeGate(
  workspace: Workspace,
  input: Omit<DecideInput, 'approvals'>,
): { first: Decision; asked: Asked | undefined } {
  let asked: Asked | undefined;
  const probe: ApprovalStore = {
    take(key) {
      asked = { key };
      return undefined;
    },
    request(key, info) {
      asked = { key, info };
      return { id: '' };
    },
  };
  const first = decide(workspace, { ...input, approvals: probe });
  return { first, asked };
}

/**
 * Runs the gate for one call, taking or requesting its approval in the host's store. `preview` is
 * called only when a new request may be recorded or an approval was taken: a taken approval allows
 * the call only while the plan it would run hashes as the plan approved, else the call is denied
 * (`plan_changed`) and the approval stays used. `peek` (the command's preview, a confined read) runs
 * only when a request is recorded; it never fails, so it never keeps one from being recorded.
 */
export async function decideWithApprovals(
  workspace: Workspace,
  input: Omit<DecideInput, 'approvals'>,
  ctx: PackCallContext,
  preview: () => ApprovalPreview,
  peek: () => Promise<ApprovalPreviewOutput | null> = async () => null,
): Promise<Decision> {
  const { first, asked } = probeGate(workspace, input);
  if (asked === undefined) return first;
  const key = storeKey(asked.key, ctx.session);
  const taken = await takeApproval(ctx.store, key, first, () => preview().planHash);
  if (taken !== undefined) {
    if (!taken.ok) return taken.denied;
    const given = { id: taken.id };
    return decide(workspace, { ...input, approvals: { take: () => given, request: () => given } });
  }
  if (asked.info === undefined) return first;
  const id = await recordRequest(
    workspace,
    input,
    ctx,
    { ...asked, info: asked.info, storeKey: key },
    preview(),
    await peek(),
  );
  return decide(workspace, {
    ...input,
    approvals: { take: () => undefined, request: () => ({ id }) },
  });
}

/**
 * Records (or finds, for an identical call) the pending request of one call, with what a person is
 * shown of it, and announces it; its id.
 */
async function recordRequest(
  workspace: Workspace,
  input: Omit<DecideInput, 'approvals'>,
  ctx: PackCallContext,
  asked: Required<Asked> & { storeKey: string },
  shown: ApprovalPreview,
  peeked: ApprovalPreviewOutput | null,
): Promise<string> {
  const { key, info } = asked;
  const record = await ctx.store.requestApproval({
    key: asked.storeKey,
    command: key.commandId,
    agent: key.agent,
    run: ctx.run,
    action: info.action,
    reason: info.reason,
    argNames: Object.keys(input.args ?? {}).sort(),
    args: shown.args,
    argv: shown.argv,
    tier: info.tier,
    ...(shown.display === null ? {} : { display: shown.display }),
    ...(peeked === null ? {} : { preview: peeked }),
    ...(shown.planHash === null ? {} : { planHash: shown.planHash }),
    ...(shown.plan === undefined ? {} : { plan: shown.plan }),
    ...(ctx.session === undefined ? {} : { session: ctx.session }),
    ttlMs: requestLifetimeMs(workspace, key.commandId, ctx.approvalTtlMs),
  });
  ctx.notices?.requested(record, workspace.notify);
  return record.id;
}
