// A decision signed by the person: `POST /api/approvals/<id>/challenge` hands out a single-use
// nonce and a WebAuthn request whose challenge is `decisionChallenge(approval, decision, plan hash,
// nonce)`; the decision then carries the passkey's assertion, checked here (the nonce, what it
// signs, the credential, origin, rpId, user verification, counter, signature) before the host
// records it with the decision (docs/console.md, "Signed decisions").
import { approvalsOf } from '@harness/host';
import { type DecisionAssertion, decisionChallenge } from '@harness/store';
import type { ApprovalRecord } from '@harness/store/records';
import { generateAuthenticationOptions, verifyAuthenticationResponse } from '@simplewebauthn/server';
import type { DecisionChallengeAnswer } from '../../answers';
import { ApiErrorCode } from '../../api-errors';
import type { ConsoleContext, RouteModule } from '../context';
import { apiError } from '../http';
import { clientChallenge, credentialOf, type WebAuthnResponse } from '../passkeys/webauthn';
import { newToken } from '../session-store';

type Decision = 'approved' | 'denied';

/** A decision's signature checked: the assertion to keep (none for an unsigned decision), or why not. */
export type SignedDecision =
  | { ok: true; assertion: DecisionAssertion | undefined }
  | { ok: false; status: 400 | 403 | 409; code: ApiErrorCode; message: string };

const ASK_AGAIN = 'decide again: the page asks the passkey for a fresh signature';

const refused = (status: 400 | 403 | 409, code: ApiErrorCode, message: string): SignedDecision => ({
  ok: false,
  status,
  code,
  message,
});

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
    const { record } = open;
    const nonce = newToken();
    const planHash = record.plan_hash ?? '';
    ctx.ceremonies.put(c.get('session')?.id ?? '', nonce, {
      kind: 'decision',
      approvalId: record.id,
      decision,
      planHash,
    });
    const options = await generateAuthenticationOptions({
      rpID: ctx.site.rpId(),
      challenge: new Uint8Array(decisionChallenge(record.id, decision, planHash, nonce)),
      allowCredentials: ctx.passkeys.list().map((p) => ({ id: p.id, transports: p.transports })),
      userVerification: 'required',
    });
    return c.json({
      nonce,
      options: options as DecisionChallengeAnswer['options'],
    } satisfies DecisionChallengeAnswer);
  });
};

/**
 * Checks the assertion a decision carries. Without one, the decision is refused
 * (`passkey_required`) once a passkey is enrolled, on loopback too: a program that got hold of the
 * operator token (or a session) signs in, but cannot decide. Before the first passkey, an unsigned
 * decision is allowed.
 */
export async function checkSignedDecision(
  ctx: ConsoleContext,
  sessionId: string | undefined,
  record: ApprovalRecord,
  decision: Decision,
  sent: unknown,
): Promise<SignedDecision> {
  if (sent === undefined || sent === null) {
    if (ctx.passkeys.count() === 0) return { ok: true, assertion: undefined };
    return refused(
      403,
      ApiErrorCode.passkey_required,
      `this console has a passkey enrolled, so a decision must be signed with it (a login link or the operator token alone no longer decides, on loopback too); ${ASK_AGAIN}`,
    );
  }
  const { nonce, response } = sent as { nonce?: unknown; response?: WebAuthnResponse };
  if (typeof nonce !== 'string' || typeof response !== 'object' || response === null) {
    return refused(400, ApiErrorCode.bad_request, 'the assertion must be {"nonce": "…", "response": {…}}');
  }
  // Taken first: a nonce is good for one attempt, whatever becomes of it. It is looked for in this
  // session's own challenges only.
  const ceremony = ctx.ceremonies.take(sessionId ?? '', nonce);
  if (ceremony?.kind !== 'decision') {
    return refused(
      409,
      ApiErrorCode.assertion_replayed,
      `this signature's nonce was used already, has expired, or was not handed to this session; ${ASK_AGAIN}`,
    );
  }
  const planHash = record.plan_hash ?? '';
  const expected = decisionChallenge(record.id, decision, planHash, nonce).toString('base64url');
  if (
    ceremony.approvalId !== record.id ||
    ceremony.decision !== decision ||
    ceremony.planHash !== planHash ||
    clientChallenge(response) !== expected
  ) {
    return refused(
      409,
      ApiErrorCode.assertion_mismatch,
      `this signature is for another approval, decision or plan than ${decision} on approval ${record.id} with its plan hash; ${ASK_AGAIN}`,
    );
  }
  return verifyAssertion(ctx, record, decision, nonce, planHash, expected, response);
}

/** The passkey's own checks: an enrolled credential, origin, rpId, user verified, counter, signature. */
async function verifyAssertion(
  ctx: ConsoleContext,
  record: ApprovalRecord,
  decision: Decision,
  nonce: string,
  planHash: string,
  challenge: string,
  response: WebAuthnResponse,
): Promise<SignedDecision> {
  const passkey = ctx.passkeys.get(String(response.id));
  if (passkey === undefined) {
    return refused(
      400,
      ApiErrorCode.passkey_invalid,
      `this passkey is not enrolled on this console; ${ASK_AGAIN}`,
    );
  }
  try {
    const verified = await verifyAuthenticationResponse({
      response: response as Parameters<typeof verifyAuthenticationResponse>[0]['response'],
      expectedChallenge: challenge,
      expectedOrigin: ctx.site.origin(),
      expectedRPID: ctx.site.rpId(),
      credential: credentialOf(passkey),
      requireUserVerification: true,
    });
    if (!verified.verified) throw new Error('its signature does not verify');
    ctx.passkeys.used(passkey.id, verified.authenticationInfo.newCounter);
  } catch (error) {
    return refused(
      400,
      ApiErrorCode.passkey_invalid,
      `the signature of ${decision} on approval ${record.id} was not accepted (${(error as Error).message}); ${ASK_AGAIN}`,
    );
  }
  const r = (response as { response: Record<string, string> }).response;
  return {
    ok: true,
    assertion: {
      credentialId: passkey.id,
      publicKey: passkey.spki,
      algorithm: passkey.algorithm,
      authenticatorData: String(r.authenticatorData),
      clientDataJSON: String(r.clientDataJSON),
      signature: String(r.signature),
      nonce,
      planHash,
    },
  };
}
