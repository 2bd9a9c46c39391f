// The check of a passkey's assertion against an enrolled credential, by the WebAuthn library: the
// challenge, origin, rpId, user verification, counter and signature. The one check behind a sign-in,
// an enrolment's proof and a signed decision; each says in its own words why one failed.
import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import type { ConsoleContext } from '../context';
import type { Passkey } from './store';
import { credentialOf, type WebAuthnResponse } from './webauthn';

/** An assertion checked: the passkey that signed it (its counter moved on), or why not. */
export type AssertionCheck =
  | { ok: true; passkey: Passkey }
  | { ok: false; why: 'not_enrolled' }
  | { ok: false; why: 'not_verified' }
  | { ok: false; why: 'refused'; message: string };

export async function checkAssertion(
  ctx: ConsoleContext,
  response: WebAuthnResponse | undefined,
  challenge: string,
): Promise<AssertionCheck> {
  const passkey = ctx.passkeys.get(String(response?.id));
  if (passkey === undefined) return { ok: false, why: 'not_enrolled' };
  try {
    const verified = await verifyAuthenticationResponse({
      response: response as Parameters<typeof verifyAuthenticationResponse>[0]['response'],
      expectedChallenge: challenge,
      expectedOrigin: ctx.site.origin(),
      expectedRPID: ctx.site.rpId(),
      credential: credentialOf(passkey),
      requireUserVerification: true,
    });
    if (!verified.verified) return { ok: false, why: 'not_verified' };
    ctx.passkeys.used(passkey.id, verified.authenticationInfo.newCounter);
    return { ok: true, passkey };
  } catch (error) {
    return { ok: false, why: 'refused', message: (error as Error).message };
  }
}
