// A decision signed by the person with a passkey, whatever it decides (an approval, a server tool's
// definition): the single-use nonce and the WebAuthn request whose challenge binds what is decided,
// then the check of the assertion the decision carries (the nonce, what it signs, the credential,
// origin, rpId, user verification, counter, signature) before the decision is recorded with it
// (docs/console.md, "Signed decisions"). Each decision's routes say what its challenge binds.
import type { DecisionAssertion } from '@harness/store';
import { generateAuthenticationOptions } from '@simplewebauthn/server';
import type { DecisionChallengeAnswer } from '../../answers';
import { ApiErrorCode } from '../../api-errors';
import type { ConsoleContext } from '../context';
import { newToken } from '../session-store';
import { checkAssertion } from './assertion';
import type { SessionCeremony } from './ceremonies';
import { clientChallenge, type WebAuthnResponse } from './webauthn';

/** A decision's signature checked: the assertion to keep (none for an unsigned decision), or why not. */
export type SignedDecision =
  | { ok: true; assertion: DecisionAssertion | undefined }
  | { ok: false; status: 400 | 403 | 409; code: ApiErrorCode; message: string };

/** What one decision binds: the ceremony its nonce is handed out with, and its challenge. */
export interface SignedSubject {
  /** Remembered with the nonce; the decision must come back with the very same one. */
  readonly ceremony: SessionCeremony;
  /** The WebAuthn challenge of this decision with `nonce`. */
  challenge(nonce: string): Buffer;
  /** What the assertion keeps as `planHash`: the plan hash of an approval, the hash of a definition. */
  readonly bound: string;
  /** The decision in words, for the messages: `approved on approval apr_…`. */
  readonly what: string;
}

const ASK_AGAIN = 'decide again: the page asks the passkey for a fresh signature';

const refused = (status: 400 | 403 | 409, code: ApiErrorCode, message: string): SignedDecision => ({
  ok: false,
  status,
  code,
  message,
});

const sameCeremony = (a: SessionCeremony, b: SessionCeremony): boolean =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** Hands `sessionId` a nonce for `subject` and the WebAuthn request its passkey signs. */
export async function signedChallenge(
  ctx: ConsoleContext,
  sessionId: string | undefined,
  subject: SignedSubject,
): Promise<DecisionChallengeAnswer> {
  const nonce = newToken();
  ctx.ceremonies.put(sessionId ?? '', nonce, subject.ceremony);
  const options = await generateAuthenticationOptions({
    rpID: ctx.site.rpId(),
    challenge: new Uint8Array(subject.challenge(nonce)),
    allowCredentials: ctx.passkeys.list().map((p) => ({ id: p.id, transports: p.transports })),
    userVerification: 'required',
  });
  return { nonce, options: options as DecisionChallengeAnswer['options'] };
}

/**
 * Checks the assertion a decision carries. Without one, the decision is refused
 * (`passkey_required`) once a passkey is enrolled, on loopback too: a program that got hold of the
 * operator token (or a session) signs in, but cannot decide. Before the first passkey, an unsigned
 * decision is allowed.
 */
export async function checkSigned(
  ctx: ConsoleContext,
  sessionId: string | undefined,
  subject: SignedSubject,
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
  if (ceremony === undefined || ceremony.kind !== subject.ceremony.kind) {
    return refused(
      409,
      ApiErrorCode.assertion_replayed,
      `this signature's nonce was used already, has expired, or was not handed to this session; ${ASK_AGAIN}`,
    );
  }
  const expected = subject.challenge(nonce).toString('base64url');
  if (!sameCeremony(ceremony, subject.ceremony) || clientChallenge(response) !== expected) {
    return refused(
      409,
      ApiErrorCode.assertion_mismatch,
      `this signature is for another decision than ${subject.what}; ${ASK_AGAIN}`,
    );
  }
  return verifyAssertion(ctx, subject, nonce, expected, response);
}

/** The passkey's own checks: an enrolled credential, origin, rpId, user verified, counter, signature. */
async function verifyAssertion(
  ctx: ConsoleContext,
  subject: SignedSubject,
  nonce: string,
  challenge: string,
  response: WebAuthnResponse,
): Promise<SignedDecision> {
  const checked = await checkAssertion(ctx, response, challenge);
  if (!checked.ok) {
    if (checked.why === 'not_enrolled') {
      return refused(
        400,
        ApiErrorCode.passkey_invalid,
        `this passkey is not enrolled on this console; ${ASK_AGAIN}`,
      );
    }
    const why = checked.why === 'refused' ? checked.message : 'its signature does not verify';
    return refused(
      400,
      ApiErrorCode.passkey_invalid,
      `the signature of ${subject.what} was not accepted (${why}); ${ASK_AGAIN}`,
    );
  }
  const { passkey } = checked;
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
      planHash: subject.bound,
    },
  };
}
