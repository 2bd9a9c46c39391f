// Packs' governance gate is a synchronous, pure function of the workspace, the call and an approval
// store; the host's store is asynchronous. The gate's decision is split from the store's take:
// the gate first runs against a probe that only notes what it would ask; when it asks for an
// approval, the host takes one (or records a request) in one store transaction, and the gate runs
// again with that answer in hand. The decision stays the gate's; the single use stays the store's.
import {
  type ApprovalKey,
  type ApprovalRequestInfo,
  type ApprovalStore,
  DEFAULT_APPROVAL_TIMEOUT_MS,
  type DecideInput,
  type Decision,
  decide,
  getCommand,
  type Workspace,
} from '@harness/packs';
import { canonicalJson, sha256 } from './canonical';
import type { PackCallContext } from './command/types';

/** The store key of one approval key: what "an identical call" means across hosts. */
const storeKey = (k: ApprovalKey): string => sha256(canonicalJson([k.commandId, k.agent, k.argsDigest]));

/** What a new approval request shows a person: the call's values and argv, credentials replaced. */
export interface ApprovalPreview {
  args: Record<string, unknown>;
  argv: string[] | null;
}

/**
 * Runs the gate for one call, taking or requesting its approval in the host's store. `preview` is
 * called only when a new request may be recorded.
 */
export async function decideWithApprovals(
  workspace: Workspace,
  input: Omit<DecideInput, 'approvals'>,
  ctx: PackCallContext,
  preview: () => ApprovalPreview,
): Promise<Decision> {
  let asked: { key: ApprovalKey; info?: ApprovalRequestInfo } | undefined;
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
  if (asked === undefined) return first;
  const { key, info } = asked;
  const taken = await ctx.store.takeApproval(storeKey(key));
  if (taken) {
    return decide(workspace, {
      ...input,
      approvals: {
        take: () => ({ id: taken.id }),
        request: () => ({ id: taken.id }),
      },
    });
  }
  if (info === undefined) return first;
  const shown = preview();
  const record = await ctx.store.requestApproval({
    key: storeKey(key),
    command: key.commandId,
    agent: key.agent,
    run: ctx.run,
    action: info.action,
    reason: info.reason,
    argNames: Object.keys(input.args ?? {}).sort(),
    args: shown.args,
    argv: shown.argv,
    tier: info.tier,
    ttlMs:
      ctx.approvalTtlMs ??
      getCommand(workspace, key.commandId)?.approvalTimeoutMs ??
      DEFAULT_APPROVAL_TIMEOUT_MS,
  });
  return decide(workspace, {
    ...input,
    approvals: { take: () => undefined, request: () => ({ id: record.id }) },
  });
}
