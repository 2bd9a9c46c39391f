// The audit event of a person's decision on an approval. Both stores write it in the decision's own
// transaction, so a decision is never without its row, nor a row without its decision
// (docs/host.md, "Audit"). A decision signed with a passkey carries its assertion, which
// `verifyDecisionAssertion` checks offline (docs/console.md, "Signed decisions").
import { createHash, createPublicKey, verify } from 'node:crypto';
import type { ApprovalRecord, AuditEventInput, DecisionAssertion } from './types';

/** The first line of every decision challenge: what the signature is for, and its version. */
export const DECISION_CHALLENGE_CONTEXT = 'harness-approval-v1';

/** The audit event of `record`, just decided by `by`: the person as actor, the command they decided on. */
export function decisionEvent(record: ApprovalRecord, by: string): AuditEventInput {
  return {
    run: record.run,
    actor: by,
    job: null,
    command: record.command,
    action: 'approval:decide',
    phase: 'approval',
    outcome: record.status,
    code: 'ok',
    reason: null,
    // Names only, as every audit row: the values are the approval's, for whoever may read it.
    payload: {
      approvalId: record.id,
      agent: record.agent,
      arg_names: record.arg_names,
      tier: record.tier,
      expires_at: record.expires_at,
      ...(record.decided_via === null ? {} : { via: record.decided_via }),
      ...(record.assertion === null ? {} : { assertion: record.assertion }),
    },
  };
}

/**
 * The WebAuthn challenge of one decision: SHA-256 of the context line, the approval id, the
 * decision, the approval's plan hash (`''` when it has none) and the server's nonce, one a line.
 * A signature over it approves (or denies) exactly that plan, once.
 */
export function decisionChallenge(
  approvalId: string,
  decision: string,
  planHash: string,
  nonce: string,
): Buffer {
  return createHash('sha256')
    .update([DECISION_CHALLENGE_CONTEXT, approvalId, decision, planHash, nonce].join('\n'))
    .digest();
}

/** The first line of every challenge of a decision on a server tool's definition (SV-19). */
export const TOOL_DECISION_CHALLENGE_CONTEXT = 'harness-tool-decision-v1';

/**
 * The WebAuthn challenge of a decision on a server tool's definition: SHA-256 of the context line,
 * the server id, the tool's upstream name, the decision, the definition hash and the server's nonce,
 * one a line. A signature over it accepts (or rejects) exactly that definition, once.
 */
export function toolDecisionChallenge(
  server: string,
  tool: string,
  decision: string,
  hash: string,
  nonce: string,
): Buffer {
  return createHash('sha256')
    .update([TOOL_DECISION_CHALLENGE_CONTEXT, server, tool, decision, hash, nonce].join('\n'))
    .digest();
}

/** Whether an assertion signs a decision, or why not. */
export type AssertionCheck = { ok: true } | { ok: false; reason: string };

const USER_PRESENT = 0x01;
const USER_VERIFIED = 0x04;

/**
 * Checks a decision's assertion offline: its clientDataJSON is a `webauthn.get` whose challenge is
 * this decision's, its authenticatorData names the origin's host as rpId with the person present
 * and verified, and its signature over authenticatorData ‖ SHA-256(clientDataJSON) verifies with
 * the public key it carries.
 */
export function verifyDecisionAssertion(
  approvalId: string,
  decision: string,
  assertion: DecisionAssertion,
): AssertionCheck {
  return verifySigned(
    decisionChallenge(approvalId, decision, assertion.planHash, assertion.nonce).toString('base64url'),
    `approval ${approvalId}, ${decision}, its plan hash and nonce`,
    assertion,
  );
}

/**
 * Checks the assertion of a decision on a server tool's definition offline, as
 * {@link verifyDecisionAssertion} does one on an approval; its `planHash` is the definition hash.
 */
export function verifyToolDecisionAssertion(
  server: string,
  tool: string,
  decision: string,
  assertion: DecisionAssertion,
): AssertionCheck {
  return verifySigned(
    toolDecisionChallenge(server, tool, decision, assertion.planHash, assertion.nonce).toString('base64url'),
    `${decision} on ${server}'s tool ${tool}, its definition hash and nonce`,
    assertion,
  );
}

function verifySigned(expected: string, what: string, assertion: DecisionAssertion): AssertionCheck {
  try {
    const clientData = Buffer.from(assertion.clientDataJSON, 'base64url');
    const parsed = JSON.parse(clientData.toString('utf8')) as {
      type?: unknown;
      challenge?: unknown;
      origin?: unknown;
    };
    if (parsed.type !== 'webauthn.get')
      return { ok: false, reason: `its type is ${String(parsed.type)}, not webauthn.get` };
    if (parsed.challenge !== expected) {
      return { ok: false, reason: `it signs another challenge than ${what}` };
    }
    const authData = Buffer.from(assertion.authenticatorData, 'base64url');
    const rpId = new URL(String(parsed.origin)).hostname;
    if (
      authData.length < 37 ||
      !authData.subarray(0, 32).equals(createHash('sha256').update(rpId).digest())
    ) {
      return { ok: false, reason: `its authenticator data is not for ${rpId}, the origin it was given at` };
    }
    const flags = authData[32] ?? 0;
    if ((flags & (USER_PRESENT | USER_VERIFIED)) !== (USER_PRESENT | USER_VERIFIED)) {
      return { ok: false, reason: 'its authenticator did not verify the person' };
    }
    const signed = Buffer.concat([authData, createHash('sha256').update(clientData).digest()]);
    const key = createPublicKey({
      key: Buffer.from(assertion.publicKey, 'base64url'),
      format: 'der',
      type: 'spki',
    });
    const signature = Buffer.from(assertion.signature, 'base64url');
    const good =
      assertion.algorithm === 'Ed25519'
        ? key.asymmetricKeyType === 'ed25519' && verify(null, signed, key, signature)
        : key.asymmetricKeyType === 'ec' && verify('sha256', signed, { key, dsaEncoding: 'der' }, signature);
    return good ? { ok: true } : { ok: false, reason: 'its signature does not verify with its public key' };
  } catch (error) {
    return { ok: false, reason: `it cannot be read (${(error as Error).message})` };
  }
}
