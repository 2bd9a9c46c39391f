// A decision signed with a passkey: the store keeps the assertion with the decision and in its
// audit event (both stores), and the offline check of an assertion (ES256 and Ed25519), each way
// it can fail. The assertions are made here with node:crypto as an authenticator would make them.
import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decisionChallenge, verifyDecisionAssertion } from '../src/decision-audit';
import type { DecisionAssertion, Store } from '../src/types';
import { describeStores } from './stores';

const ORIGIN = 'https://console.test';
const PLAN = 'ab'.repeat(32);
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

/** An assertion over `challenge`, signed as an ES256 or Ed25519 authenticator signs. */
function assertion(
  kind: 'ES256' | 'Ed25519',
  approvalId: string,
  decision: string,
  over: {
    challenge?: Buffer;
    type?: string;
    flags?: number;
    key?: { privateKey: KeyObject; publicKey: KeyObject };
  } = {},
): DecisionAssertion {
  const key =
    over.key ??
    (kind === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519'));
  const nonce = 'nonce-1';
  const challenge = over.challenge ?? decisionChallenge(approvalId, decision, PLAN, nonce);
  const clientData = Buffer.from(
    JSON.stringify({
      type: over.type ?? 'webauthn.get',
      challenge: challenge.toString('base64url'),
      origin: ORIGIN,
    }),
  );
  const authData = Buffer.concat([
    sha256('console.test'),
    Buffer.from([over.flags ?? 0x05]),
    Buffer.from([0, 0, 0, 1]),
  ]);
  const signed = Buffer.concat([authData, sha256(clientData)]);
  const signature =
    kind === 'ES256' ? sign('sha256', signed, key.privateKey) : sign(null, signed, key.privateKey);
  return {
    credentialId: 'cred-1',
    publicKey: key.publicKey.export({ format: 'der', type: 'spki' }).toString('base64url'),
    algorithm: kind,
    authenticatorData: authData.toString('base64url'),
    clientDataJSON: clientData.toString('base64url'),
    signature: signature.toString('base64url'),
    nonce,
    planHash: PLAN,
  };
}

describe('verifyDecisionAssertion', () => {
  for (const kind of ['ES256', 'Ed25519'] as const) {
    it(`accepts a ${kind} signature over the decision's challenge`, () => {
      expect(verifyDecisionAssertion('apr_1', 'approved', assertion(kind, 'apr_1', 'approved'))).toEqual({
        ok: true,
      });
    });
  }

  it('names a signature over another approval, decision or plan hash', () => {
    const a = assertion('ES256', 'apr_1', 'approved');
    expect(verifyDecisionAssertion('apr_2', 'approved', a)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('another challenge'),
    });
    expect(verifyDecisionAssertion('apr_1', 'denied', a)).toMatchObject({ ok: false });
    expect(verifyDecisionAssertion('apr_1', 'approved', { ...a, planHash: 'cd'.repeat(32) })).toMatchObject({
      ok: false,
    });
  });

  it('names a changed signature, another key, a registration, and a person not verified', () => {
    const a = assertion('ES256', 'apr_1', 'approved');
    const other = assertion('ES256', 'apr_1', 'approved');
    expect(verifyDecisionAssertion('apr_1', 'approved', { ...a, publicKey: other.publicKey })).toEqual({
      ok: false,
      reason: 'its signature does not verify with its public key',
    });
    expect(verifyDecisionAssertion('apr_1', 'approved', { ...a, signature: other.signature })).toMatchObject({
      ok: false,
    });
    expect(
      verifyDecisionAssertion(
        'apr_1',
        'approved',
        assertion('ES256', 'apr_1', 'approved', { type: 'webauthn.create' }),
      ),
    ).toEqual({ ok: false, reason: 'its type is webauthn.create, not webauthn.get' });
    expect(
      verifyDecisionAssertion(
        'apr_1',
        'approved',
        assertion('Ed25519', 'apr_1', 'approved', { flags: 0x01 }),
      ),
    ).toEqual({ ok: false, reason: 'its authenticator did not verify the person' });
  });
});

describeStores('a decision signed with a passkey keeps its assertion', (kind) => {
  const request = (store: Store) =>
    store.requestApproval({
      key: 'k-signed',
      command: 'text.touch',
      agent: 'editor',
      run: 'run-7',
      action: 'command:call:text:touch',
      reason: 'strict tier',
      argNames: ['file'],
      args: { file: 'a.txt' },
      argv: ['touch', '--', 'a.txt'],
      tier: 'strict',
      planHash: PLAN,
      ttlMs: 60_000,
    });

  it('in the approval and in its audit event, where it still verifies', async () => {
    const store = await kind.open();
    try {
      const held = await request(store);
      expect(held.assertion).toBeNull();
      const signed = assertion('ES256', held.id, 'approved');
      const decided = await store.decideApproval(
        held.id,
        'approved',
        'person:ann',
        60_000,
        new Date(),
        'console',
        signed,
      );
      expect(decided.assertion).toEqual(signed);
      expect((await store.getApproval(held.id))?.assertion).toEqual(signed);
      const [event] = (await store.queryAudit({})).events;
      expect(event?.payload.assertion).toEqual(signed);
      // As read back from either store, the event's assertion still verifies offline.
      expect(
        verifyDecisionAssertion(
          String(event?.payload.approvalId),
          String(event?.outcome),
          event?.payload.assertion as DecisionAssertion,
        ),
      ).toEqual({ ok: true });
    } finally {
      await store.close();
    }
  });
});
