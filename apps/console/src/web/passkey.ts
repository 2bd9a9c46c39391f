// The page's side of passkeys (WebAuthn through `navigator.credentials`): enrol one, sign in with
// one, and sign a decision (on an approval, on a server tool's definition) with one. The server's
// JSON (binary fields base64url) is turned into the browser's buffers and back here, so the page
// needs no library.
import type { DecisionChallengeAnswer, PasskeysAnswer, RequestOptionsJSON } from '../answers';
import { ApiError, getJson, PageErrorCode, postJson } from './api';

function bytes(text: string): Uint8Array<ArrayBuffer> {
  const plain = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(plain.length);
  for (let i = 0; i < plain.length; i++) out[i] = plain.charCodeAt(i);
  return out;
}

function text(buffer: ArrayBuffer | null): string | undefined {
  if (buffer === null) return undefined;
  let plain = '';
  for (const b of new Uint8Array(buffer)) plain += String.fromCharCode(b);
  return btoa(plain).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

type CredentialIds = { id: string; type: 'public-key'; transports?: string[] }[] | undefined;

const descriptors = (list: CredentialIds): PublicKeyCredentialDescriptor[] | undefined =>
  list?.map((c) => ({ id: bytes(c.id), type: c.type, transports: c.transports as AuthenticatorTransport[] }));

/** Asks the browser's passkey for an assertion; its JSON as the server reads it. */
async function assert(options: RequestOptionsJSON): Promise<Record<string, unknown>> {
  const allowCredentials = descriptors(options.allowCredentials);
  const credential = (await navigator.credentials.get({
    publicKey: {
      challenge: bytes(options.challenge),
      ...(options.rpId === undefined ? {} : { rpId: options.rpId }),
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
      ...(options.userVerification === undefined ? {} : { userVerification: options.userVerification }),
      ...(allowCredentials === undefined ? {} : { allowCredentials }),
    },
  })) as PublicKeyCredential | null;
  if (credential === null) throw new Error('no passkey answered; try again');
  const r = credential.response as AuthenticatorAssertionResponse;
  return {
    id: credential.id,
    rawId: text(credential.rawId),
    type: credential.type,
    response: {
      clientDataJSON: text(r.clientDataJSON),
      authenticatorData: text(r.authenticatorData),
      signature: text(r.signature),
      userHandle: text(r.userHandle),
    },
    clientExtensionResults: {},
  };
}

/** The console's passkeys and whether decisions are signed. */
export function passkeyStatus(): Promise<PasskeysAnswer> {
  return getJson<PasskeysAnswer>('/passkeys');
}

/**
 * Decides an approval: signed with a passkey when the console has one (a fresh challenge binding
 * the approval, the decision, its plan hash and a nonce), else as a plain request.
 */
export async function decide(approvalId: string, decision: 'approved' | 'denied'): Promise<void> {
  const path = `/approvals/${encodeURIComponent(approvalId)}`;
  if (!(await passkeyStatus()).signDecisions) {
    await postJson(`${path}/decision`, { decision });
    return;
  }
  const challenge = await postJson<DecisionChallengeAnswer>(`${path}/challenge`, { decision });
  const response = await assert(challenge.options);
  await postJson(`${path}/decision`, { decision, assertion: { nonce: challenge.nonce, response } });
}

/**
 * Decides a server tool's definition held for review, naming the hash the page showed: signed with a
 * passkey when the console has one (a fresh challenge binding the server, the tool, the decision,
 * the hash and a nonce), else as a plain request.
 */
export async function decideTool(body: {
  server: string;
  tool: string;
  hash: string;
  decision: 'accepted' | 'rejected';
}): Promise<void> {
  if (!(await passkeyStatus()).signDecisions) {
    await postJson('/servers/decision', body);
    return;
  }
  const challenge = await postJson<DecisionChallengeAnswer>('/servers/challenge', body);
  const response = await assert(challenge.options);
  await postJson('/servers/decision', { ...body, assertion: { nonce: challenge.nonce, response } });
}

interface CreationOptionsJSON {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string; displayName: string };
  pubKeyCredParams: PublicKeyCredentialParameters[];
  timeout?: number;
  excludeCredentials?: { id: string; type: 'public-key'; transports?: string[] }[];
  authenticatorSelection?: AuthenticatorSelectionCriteria;
  attestation?: AttestationConveyancePreference;
}

/** Enrols a new passkey under `label` from this signed-in session. */
export async function enrolPasskey(label: string): Promise<void> {
  type Options = { options: CreationOptionsJSON } | { stepUp: RequestOptionsJSON };
  let answer = await postJson<Options>('/passkeys/register/options', { label });
  // A console with a passkey first asks one enrolled already to sign.
  if ('stepUp' in answer) {
    answer = await postJson<Options>('/passkeys/register/options', {
      label,
      proof: await assert(answer.stepUp),
    });
  }
  if (!('options' in answer)) throw new Error('the console asked for a passkey signature again; try again');
  const { options } = answer;
  const excludeCredentials = descriptors(options.excludeCredentials);
  const credential = (await navigator.credentials.create({
    publicKey: {
      challenge: bytes(options.challenge),
      rp: options.rp,
      user: { ...options.user, id: bytes(options.user.id) },
      pubKeyCredParams: options.pubKeyCredParams,
      ...(options.timeout === undefined ? {} : { timeout: options.timeout }),
      ...(excludeCredentials === undefined ? {} : { excludeCredentials }),
      ...(options.authenticatorSelection === undefined
        ? {}
        : { authenticatorSelection: options.authenticatorSelection }),
      ...(options.attestation === undefined ? {} : { attestation: options.attestation }),
    },
  })) as PublicKeyCredential | null;
  if (credential === null) throw new Error('no passkey was made; try again');
  const r = credential.response as AuthenticatorAttestationResponse;
  await postJson('/passkeys/register', {
    response: {
      id: credential.id,
      rawId: text(credential.rawId),
      type: credential.type,
      response: {
        clientDataJSON: text(r.clientDataJSON),
        attestationObject: text(r.attestationObject),
        transports: r.getTransports(),
      },
      clientExtensionResults: {},
    },
  });
}

/** A POST before any session (the sign-in): no CSRF token exists yet, the Origin is checked. */
async function postPublic<T>(path: string, body: unknown): Promise<T> {
  const response = await fetch(`/api${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json().catch(() => ({}))) as { error?: { message?: unknown } };
  if (!response.ok) {
    const message = typeof answer.error?.message === 'string' ? answer.error.message : response.statusText;
    throw new ApiError(response.status, PageErrorCode.unexpected_answer, message);
  }
  return answer as T;
}

/** Signs this browser in with a passkey (a discoverable credential: the browser offers its own). */
export async function signInWithPasskey(): Promise<void> {
  const { options } = await postPublic<{ options: RequestOptionsJSON }>('/passkeys/login/options', {});
  await postPublic('/passkeys/login', { response: await assert(options) });
}
