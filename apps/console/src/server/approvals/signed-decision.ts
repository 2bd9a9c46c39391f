// A decision on an approval signed by the person: `POST /api/approvals/<id>/challenge` hands out a
// single-use nonce and a WebAuthn request whose challenge is `decisionChallenge(approval, decision,
// plan hash, nonce)`; the decision then carries the passkey's assertion, checked by
// ../passkeys/signed.ts before the host records it with the decision (docs/console.md, "Signed
// decisions").
import { approvalsOf } from '@harness/host';
import { decisionChallenge } from '@harness/store';
import type { ApprovalRecord } from '@harness/store/records';
import type { DecisionChallengeAnswer } from '../../answers';
import { ApiErrorCode } from '../../api-errors';
import type { ConsoleContext, RouteModule } from '../context';
import { apiError } from '../http';
import { checkSigned, type SignedDecision, type SignedSubject, signedChallenge } from '../passkeys/signed';

export type { SignedDecision } from '../passkeys/signed';

type Decision = 'approved' | 'denied';

/** What a decision on `record` binds: the approval, the decision, its plan hash. */
function approvalSubject(record: ApprovalRecord, decision: Decision): SignedSubject {
  const planHash = record.plan_hash ?? '';
  return {
    ceremony: { kind: 'decision', approvalId: record.id, decision, planHash },
    challenge: (nonce) => decisionChallenge(record.id, decision, planHash, nonce),
    bound: planHash,
    what: `${decision} on approval ${record.id} with its plan hash`,
  };
}

export const signedDecisionRoutes: RouteModule = (api, ctx) => {
  api.post('/approvals/:id/challenge', async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as { decision?: unknown } | undefined;
    const decision = body?.decision;
    if (decision !== 'approved' && decision !== 'denied') {
      return apiError(
        c,
        400,
        ApiErrorCode.bad_request,
        'the body must be {"decision":"approved"} or {"decision":"denied"}',
      );
    }
    const open = await approvalsOf(ctx.store).decidable(c.req.param('id'));
    if (!open.ok && open.code === 'not_found') {
      return apiError(c, 404, ApiErrorCode.not_found, 'no approval has this id');
    }
    if (!open.ok) {
      return apiError(c, 409, ApiErrorCode.conflict, `approval ${open.id} is ${open.status}, not pending`);
    }
    const answer = await signedChallenge(ctx, c.get('session')?.id, approvalSubject(open.record, decision));
    return c.json(answer satisfies DecisionChallengeAnswer);
  });
};

/**
 * Checks the assertion a decision on `record` carries (../passkeys/signed.ts): refused unsigned once
 * a passkey is enrolled, on loopback too; before the first passkey, an unsigned decision is allowed.
 */
export function checkSignedDecision(
  ctx: ConsoleContext,
  sessionId: string | undefined,
  record: ApprovalRecord,
  decision: Decision,
  sent: unknown,
): Promise<SignedDecision> {
  return checkSigned(ctx, sessionId, approvalSubject(record, decision), sent);
}
