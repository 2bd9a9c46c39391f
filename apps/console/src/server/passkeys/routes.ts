// Passkeys (WebAuthn): `GET /api/passkeys` lists them; `POST /api/passkeys/register/options` and
// `POST /api/passkeys/register` enrol one from a signed-in session (with an enrolled passkey's
// signature first, once the console has one); `POST /api/passkeys/login/options`
// and `POST /api/passkeys/login` sign in with one, without a session (docs/console.md, "Passkeys").
import { isIP } from 'node:net';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { PasskeysAnswer } from '../../answers';
import { ApiErrorCode } from '../../api-errors';
import type { ConsoleContext, RouteModule } from '../context';
import { apiError } from '../http';
import { setSessionCookie } from '../security';
import { checkAssertion } from './assertion';
import { PASSKEY_ALGORITHMS, spkiOfCose } from './keys';
import { clientChallenge, type WebAuthnResponse } from './webauthn';

/** The longest label a passkey may have. */
const LABEL_MAX = 64;

const RETRY = 'start again (the page asks the passkey again)';

/** An assertion checked against an enrolled passkey (its counter moved on), or why not, in words. */
type Checked = { ok: true } | { ok: false; why: string };

async function checkPasskey(
  ctx: ConsoleContext,
  response: WebAuthnResponse | undefined,
  challenge: string,
): Promise<Checked> {
  const checked = await checkAssertion(ctx, response, challenge);
  if (checked.ok) return { ok: true };
  if (checked.why === 'not_enrolled')
    return { ok: false, why: 'this passkey is not enrolled on this console' };
  if (checked.why === 'not_verified') return { ok: false, why: 'the passkey did not verify' };
  return { ok: false, why: `the passkey was not accepted (${checked.message})` };
}

/** A request for any enrolled passkey's signature, remembered as `sessionId`'s step-up. */
async function askPasskey(ctx: ConsoleContext, sessionId: string) {
  const options = await generateAuthenticationOptions({
    rpID: ctx.site.rpId(),
    userVerification: 'required',
    allowCredentials: ctx.passkeys.list().map((p) => ({ id: p.id, transports: p.transports })),
  });
  ctx.ceremonies.put(sessionId, options.challenge, { kind: 'step-up' });
  return options;
}

/** A refused passkey ceremony: why, and that the page starts again. */
const invalid = (c: Parameters<typeof apiError>[0], why: string) =>
  apiError(c, 400, ApiErrorCode.passkey_invalid, `${why}; ${RETRY}`);

/** The passkey routes: the list, enrolment and sign-in. */
export const passkeysRoutes: RouteModule = (api, ctx) => {
  api.get('/passkeys', (c) => {
    const passkeys = ctx.passkeys.list();
    return c.json({
      passkeys: passkeys.map(({ id, label, algorithm, created_at, last_used_at }) => ({
        id,
        label,
        algorithm,
        created_at,
        last_used_at,
      })),
      rpId: ctx.site.rpId(),
      enrolable: isIP(ctx.site.rpId().replace(/^\[|\]$/g, '')) === 0,
      signDecisions: passkeys.length > 0,
      signingRequired: passkeys.length > 0,
    } satisfies PasskeysAnswer);
  });
  enrolRoutes(api, ctx);
  signInRoutes(api, ctx);
};

/** Enrolment: options (after an enrolled passkey's signature, once there is one), then the new passkey. */
const enrolRoutes: RouteModule = (api, ctx) => {
  // Once a passkey exists, another is enrolled only with the signature of one enrolled already, on
  // loopback too: a stolen session, or a program holding the operator token, cannot add a passkey
  // of its own and then sign decisions with it.
  api.post('/passkeys/register/options', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { label?: unknown; proof?: WebAuthnResponse };
    const label = typeof body.label === 'string' ? body.label.trim() : '';
    if (label === '' || label.length > LABEL_MAX) {
      return apiError(
        c,
        400,
        ApiErrorCode.bad_request,
        `give the passkey a label of 1 to ${LABEL_MAX} characters`,
      );
    }
    const sessionId = c.get('session')?.id ?? '';
    if (ctx.passkeys.count() > 0) {
      if (body.proof === undefined) return c.json({ stepUp: await askPasskey(ctx, sessionId) });
      const challenge = clientChallenge(body.proof);
      const ceremony = challenge === undefined ? undefined : ctx.ceremonies.take(sessionId, challenge);
      if (ceremony?.kind !== 'step-up') {
        return invalid(c, 'this signature was not asked for here, was used already, or expired');
      }
      const checked = await checkPasskey(ctx, body.proof, challenge as string);
      if (!checked.ok) return invalid(c, checked.why);
    }
    const options = await generateRegistrationOptions({
      rpName: 'harness console',
      rpID: ctx.site.rpId(),
      userName: ctx.person,
      userID: new Uint8Array(ctx.passkeys.userHandle()),
      attestationType: 'none',
      excludeCredentials: ctx.passkeys.list().map((p) => ({ id: p.id, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    });
    ctx.ceremonies.put(sessionId, options.challenge, { kind: 'register', label });
    return c.json({ options });
  });

  api.post('/passkeys/register', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { response?: WebAuthnResponse };
    const challenge = clientChallenge(body.response);
    const sessionId = c.get('session')?.id ?? '';
    const ceremony = challenge === undefined ? undefined : ctx.ceremonies.take(sessionId, challenge);
    if (ceremony?.kind !== 'register') {
      return invalid(c, 'this enrolment was not started here, was used already, or expired');
    }
    try {
      const verified = await verifyRegistrationResponse({
        response: body.response as Parameters<typeof verifyRegistrationResponse>[0]['response'],
        expectedChallenge: challenge as string,
        expectedOrigin: ctx.site.origin(),
        expectedRPID: ctx.site.rpId(),
        requireUserVerification: true,
        supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
      });
      if (!verified.verified) return invalid(c, 'the passkey did not verify');
      const { credential } = verified.registrationInfo;
      const key = spkiOfCose(credential.publicKey);
      ctx.passkeys.add({
        id: credential.id,
        cose: Buffer.from(credential.publicKey).toString('base64url'),
        spki: key.spki,
        algorithm: key.algorithm,
        counter: credential.counter,
        label: ceremony.label,
        transports: credential.transports ?? [],
        created_at: new Date().toISOString(),
      });
      return c.json({ passkey: { id: credential.id, label: ceremony.label, algorithm: key.algorithm } });
    } catch (error) {
      return invalid(c, `the passkey was not accepted (${(error as Error).message})`);
    }
  });
};

/** Sign-in with an enrolled passkey, without a session. */
const signInRoutes: RouteModule = (api, ctx) => {
  api.post('/passkeys/login/options', async (c) => {
    if (ctx.passkeys.count() === 0) {
      return apiError(
        c,
        409,
        ApiErrorCode.conflict,
        'this console has no passkey yet: open the login link `harness console` printed, then add one under Passkeys',
      );
    }
    const options = await generateAuthenticationOptions({
      rpID: ctx.site.rpId(),
      userVerification: 'required',
    });
    ctx.ceremonies.putAnonymous(options.challenge, { kind: 'login' });
    return c.json({ options });
  });

  api.post('/passkeys/login', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as { response?: WebAuthnResponse };
    const challenge = clientChallenge(body.response);
    const ceremony = challenge === undefined ? undefined : ctx.ceremonies.takeAnonymous(challenge);
    if (ceremony?.kind !== 'login')
      return invalid(c, 'this sign-in was not started here, was used already, or expired');
    const checked = await checkPasskey(ctx, body.response, challenge as string);
    if (!checked.ok) return invalid(c, checked.why);
    setSessionCookie(c, ctx, ctx.sessions.open('passkey'));
    return c.json({ signedIn: true });
  });
};
