// The console beyond loopback, over real HTTP: the start refusals (TLS), a console behind a TLS
// reverse proxy (Host, X-Forwarded-Proto, Origin, Secure cookies), passkeys enrolled and used to
// sign in (a software authenticator: the browser test uses Chromium's), decisions signed with a
// passkey and each refusal of a signature that does not fit, the rate limit, and `verifyAudit`
// checking the stored signature offline.
import { request } from 'node:http';
import { join } from 'node:path';
import { type ApprovalRecord, STORE_FILE, verifyAuditStore } from '@harness/store';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseConsoleFlags, type RunningConsole, resolveConsoleOptions, startConsole } from '../src/index';
import { RATE_BURST } from '../src/server/rate-limit';
import { apiClient } from './helpers/api';
import { type FakeAuthenticator, fakeAuthenticator } from './helpers/fake-authenticator';
import { makeInstance, type TestInstance } from './helpers/instance';

const PUBLIC = 'https://console.test';
const RP_ID = 'console.test';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: Record<string, unknown>;
}

/** A request as a TLS reverse proxy in front of the console passes it on (Host kept, the scheme said). */
function throughProxy(
  running: RunningConsole,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown; proto?: string | null } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    host: RP_ID,
    ...(options.proto === null ? {} : { 'x-forwarded-proto': options.proto ?? 'https' }),
    ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const req = request(
      `http://127.0.0.1:${running.port}${path}`,
      { method: options.method ?? 'GET', headers },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c.toString('utf8');
        });
        res.on('end', () => {
          let json: Record<string, unknown> = {};
          try {
            json = JSON.parse(text) as Record<string, unknown>;
          } catch {}
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body === undefined ? undefined : JSON.stringify(options.body));
  });
}

const code = (a: Answer) => (a.json.error as { code?: string } | undefined)?.code;

/** A signed-in browser behind the proxy: its cookie and CSRF token. */
interface Browserish {
  cookie: string;
  csrf: string;
  setCookie: string;
}

async function sessionOf(running: RunningConsole, setCookie: string): Promise<Browserish> {
  const cookie = setCookie.split(';')[0] ?? '';
  const s = await throughProxy(running, '/api/session', { headers: { cookie } });
  return { cookie, csrf: String(s.json.csrf), setCookie };
}

async function linkLogin(running: RunningConsole): Promise<Answer & { session?: Browserish }> {
  const path = new URL(running.loginUrl()).pathname + new URL(running.loginUrl()).search;
  const r = await throughProxy(running, path);
  if (r.status !== 303) return r;
  return { ...r, session: await sessionOf(running, String(r.headers['set-cookie'])) };
}

function post(
  running: RunningConsole,
  who: Browserish,
  path: string,
  body: unknown,
  extra: Record<string, string> = {},
) {
  return throughProxy(running, `/api${path}`, {
    method: 'POST',
    body,
    headers: { cookie: who.cookie, origin: PUBLIC, 'x-csrf-token': who.csrf, ...extra },
  });
}

async function pending(
  running: RunningConsole,
  line: string,
  planHash = 'ab'.repeat(32),
): Promise<ApprovalRecord> {
  return running.ctx.store.requestApproval({
    key: `key-${line}`,
    command: 'notes.append',
    agent: 'tester',
    run: 'run-passkeys',
    action: 'command:call:notes:append',
    reason: 'strict tier',
    argNames: ['line'],
    args: { line },
    argv: ['/bin/sh', '-c', 'echo "$1" >> notes.txt', '--', line],
    tier: 'strict',
    planHash,
    ttlMs: 3_600_000,
  });
}

/** The challenge and nonce the console hands out for a decision, and the fake's answer to it. */
async function signed(
  running: RunningConsole,
  who: Browserish,
  key: FakeAuthenticator,
  approvalId: string,
  decision: 'approved' | 'denied',
  challenge?: (nonce: string, given: string) => string,
) {
  const r = await post(running, who, `/approvals/${approvalId}/challenge`, { decision });
  expect(r.status).toBe(200);
  const nonce = String(r.json.nonce);
  const given = String((r.json.options as { challenge: string }).challenge);
  const response = key.assert(challenge?.(nonce, given) ?? given, RP_ID, PUBLIC);
  return { nonce, response };
}

describe('starting off loopback', () => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await makeInstance();
  });
  afterAll(() => t?.cleanup());
  const token = 'x'.repeat(40);

  it('refuses a non-loopback listener that would serve plain HTTP (tls_required)', async () => {
    await expect(
      startConsole({ instanceDir: t.instanceDir, listen: '0.0.0.0:0', token }),
    ).rejects.toMatchObject({
      code: 'tls_required',
      message: expect.stringContaining('--tls-cert <pem> and --tls-key <pem>, or --public-url https://'),
    });
  });

  it('refuses a plain-HTTP public URL on a host other machines reach (tls_required)', async () => {
    await expect(
      startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0', publicUrl: 'http://console.test' }),
    ).rejects.toMatchObject({ code: 'tls_required' });
  });

  it('refuses a public URL that is not an origin (public_url_invalid)', async () => {
    await expect(
      startConsole({
        instanceDir: t.instanceDir,
        listen: '127.0.0.1:0',
        publicUrl: 'https://console.test/x',
      }),
    ).rejects.toMatchObject({ code: 'public_url_invalid', message: expect.stringContaining('no path') });
  });

  it('takes --public-url and the TLS files from the command line, the two files together or not at all', async () => {
    const options = await resolveConsoleOptions(
      parseConsoleFlags(['--public-url', PUBLIC]),
      t.instanceDir,
      {},
    );
    expect(options.publicUrl).toBe(PUBLIC);
    const alone = parseConsoleFlags(['--listen', '0.0.0.0:0', '--tls-cert', join(t.root, 'cert.pem')]);
    await expect(resolveConsoleOptions(alone, t.instanceDir, {})).rejects.toMatchObject({
      code: 'tls_invalid',
      message: '--tls-cert and --tls-key go together: give the certificate (PEM) and its private key (PEM)',
    });
  });

  it('refuses a certificate and key that are not PEM (tls_invalid)', async () => {
    await expect(
      startConsole({
        instanceDir: t.instanceDir,
        listen: '0.0.0.0:0',
        token,
        tls: { cert: 'nope', key: 'nope' },
      }),
    ).rejects.toMatchObject({ code: 'tls_invalid' });
  });
});

describe('a console behind a TLS reverse proxy, with passkeys', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let key: FakeAuthenticator;
  let first: Browserish;

  beforeAll(async () => {
    t = await makeInstance();
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0', publicUrl: PUBLIC });
    key = fakeAuthenticator();
  });
  afterAll(async () => {
    await running?.close();
    t?.cleanup();
  });

  it('prints the public URL and answers only to its Host', async () => {
    expect(running.url.startsWith(`${PUBLIC}/?token=`)).toBe(true);
    const r = await throughProxy(running, '/', { headers: { host: `127.0.0.1:${running.port}` } });
    expect(r.status).toBe(421);
    expect(JSON.parse(r.text).error.message).toContain('proxy_set_header Host $host');
  });

  it('refuses a request that did not reach the proxy over https (https_required)', async () => {
    for (const proto of [null, 'http']) {
      const r = await throughProxy(running, '/api/session', { proto });
      expect(r.status).toBe(403);
      expect(code(r)).toBe('https_required');
      expect(String(r.json.error && (r.json.error as { message: string }).message)).toContain(
        'X-Forwarded-Proto: https',
      );
    }
  });

  it('logs in by the printed link with a Secure, HttpOnly, SameSite=Strict cookie', async () => {
    const r = await linkLogin(running);
    expect(r.status).toBe(303);
    expect(String(r.headers['set-cookie'])).toMatch(/HttpOnly/);
    expect(String(r.headers['set-cookie'])).toMatch(/Secure/);
    expect(String(r.headers['set-cookie'])).toMatch(/SameSite=Strict/);
    expect(r.headers['strict-transport-security']).toBe('max-age=31536000');
    first = r.session as Browserish;
  });

  it('refuses an enrolment by a passkey that signed another challenge than the one handed out', async () => {
    const options = await post(running, first, '/passkeys/register/options', { label: 'again' });
    const o = options.json.options as { challenge: string; rp: { id: string } };
    const other = fakeAuthenticator();
    const forged = await post(running, first, '/passkeys/register', {
      response: other.register({ ...o, challenge: Buffer.from('another').toString('base64url') }, PUBLIC),
    });
    expect(forged.status).toBe(400);
    expect(code(forged)).toBe('passkey_invalid');
  });

  it('enrols the first passkey from the link’s session and lists it without its key', async () => {
    const options = await post(running, first, '/passkeys/register/options', { label: 'laptop' });
    expect(options.status).toBe(200);
    const o = options.json.options as { challenge: string; rp: { id: string } };
    expect(o.rp.id).toBe(RP_ID);
    const response = key.register(o, PUBLIC);
    const done = await post(running, first, '/passkeys/register', { response });
    expect(done.status).toBe(200);
    // The same answer again finds its challenge spent.
    const twice = await post(running, first, '/passkeys/register', { response });
    expect(code(twice)).toBe('passkey_invalid');
    const list = await throughProxy(running, '/api/passkeys', { headers: { cookie: first.cookie } });
    expect(list.json).toMatchObject({
      rpId: RP_ID,
      signDecisions: true,
      signingRequired: true,
      passkeys: [{ id: key.credentialId, label: 'laptop', algorithm: 'ES256', last_used_at: null }],
    });
    expect(list.text).not.toContain('spki');
  });

  it('signs in by passkey only, once one is enrolled: a login link is refused with the way to sign in', async () => {
    const link = await linkLogin(running);
    expect(link.status).toBe(403);
    expect(link.text).toContain(`Sign in with your passkey at ${PUBLIC}/login`);
    const page = await throughProxy(running, '/');
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/login');
    const login = await throughProxy(running, '/login');
    expect(login.status).toBe(200);
    const api = await throughProxy(running, '/api/approvals');
    expect(api.status).toBe(401);
    expect(JSON.parse(api.text).error.message).toBe(
      `No console session. To continue, sign in with your passkey at ${PUBLIC}/login.`,
    );

    const options = await throughProxy(running, '/api/passkeys/login/options', {
      method: 'POST',
      body: {},
      headers: { origin: PUBLIC },
    });
    expect(options.status).toBe(200);
    const challenge = (options.json.options as { challenge: string }).challenge;
    const signedIn = await throughProxy(running, '/api/passkeys/login', {
      method: 'POST',
      body: { response: key.assert(challenge, RP_ID, PUBLIC) },
      headers: { origin: PUBLIC },
    });
    expect(signedIn.status).toBe(200);
    expect(String(signedIn.headers['set-cookie'])).toMatch(/Secure/);
    const session = await sessionOf(running, String(signedIn.headers['set-cookie']));
    expect(session.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('enrols a further passkey only with the signature of one enrolled already', async () => {
    const second = fakeAuthenticator();
    const ask = await post(running, first, '/passkeys/register/options', { label: 'second' });
    expect(ask.status).toBe(200);
    expect(ask.json.options).toBeUndefined();
    const stranger = await post(running, first, '/passkeys/register/options', {
      label: 'second',
      proof: second.assert((ask.json.stepUp as { challenge: string }).challenge, RP_ID, PUBLIC),
    });
    expect(stranger.status).toBe(400);
    expect(code(stranger)).toBe('passkey_invalid');
    const again = await post(running, first, '/passkeys/register/options', { label: 'second' });
    const proof = key.assert((again.json.stepUp as { challenge: string }).challenge, RP_ID, PUBLIC);
    const options = await post(running, first, '/passkeys/register/options', { label: 'second', proof });
    const o = options.json.options as { challenge: string; rp: { id: string } };
    const done = await post(running, first, '/passkeys/register', { response: second.register(o, PUBLIC) });
    expect(done.status).toBe(200);
    expect(running.ctx.passkeys.list().map((p) => p.label)).toEqual(['laptop', 'second']);
  });

  it('refuses a passkey sign-in from a foreign Origin (forbidden_origin)', async () => {
    const r = await throughProxy(running, '/api/passkeys/login/options', {
      method: 'POST',
      body: {},
      headers: { origin: 'https://evil.test' },
    });
    expect(r.status).toBe(403);
    expect(code(r)).toBe('forbidden_origin');
  });

  it('refuses a decision without a signature (passkey_required), and leaves the approval pending', async () => {
    const a = await pending(running, 'unsigned');
    const r = await post(running, first, `/approvals/${a.id}/decision`, { decision: 'approved' });
    expect(r.status).toBe(403);
    expect(code(r)).toBe('passkey_required');
    expect((await running.ctx.store.getApproval(a.id))?.status).toBe('pending');
  });

  it('refuses a decision without the CSRF token, or from a foreign Origin', async () => {
    const a = await pending(running, 'forged');
    const noCsrf = await post(running, { ...first, csrf: '' }, `/approvals/${a.id}/decision`, {
      decision: 'denied',
    });
    expect(noCsrf.status).toBe(403);
    expect(code(noCsrf)).toBe('csrf_invalid');
    const foreign = await post(
      running,
      first,
      `/approvals/${a.id}/decision`,
      { decision: 'denied' },
      {
        origin: 'https://evil.test',
      },
    );
    expect(foreign.status).toBe(403);
    expect(code(foreign)).toBe('forbidden_origin');
    expect(JSON.parse(foreign.text).error.message).toContain(PUBLIC);
  });

  it('refuses a signature over another plan hash, or one asked for another approval (assertion_mismatch)', async () => {
    const a = await pending(running, 'plan-a');
    const b = await pending(running, 'plan-b', 'cd'.repeat(32));
    const { decisionChallenge } = await import('@harness/store');
    const otherPlan = await signed(running, first, key, a.id, 'approved', (nonce) =>
      decisionChallenge(a.id, 'approved', 'ef'.repeat(32), nonce).toString('base64url'),
    );
    const r1 = await post(running, first, `/approvals/${a.id}/decision`, {
      decision: 'approved',
      assertion: otherPlan,
    });
    expect(r1.status).toBe(409);
    expect(code(r1)).toBe('assertion_mismatch');
    const forA = await signed(running, first, key, a.id, 'approved');
    const r2 = await post(running, first, `/approvals/${b.id}/decision`, {
      decision: 'approved',
      assertion: forA,
    });
    expect(r2.status).toBe(409);
    expect(code(r2)).toBe('assertion_mismatch');
    expect(JSON.parse(r2.text).error.message).toContain('decide again');
    expect((await running.ctx.store.getApproval(a.id))?.status).toBe('pending');
    expect((await running.ctx.store.getApproval(b.id))?.status).toBe('pending');
  });

  it('records a signed decision with its assertion, in the approval and its audit event, which verify checks', async () => {
    const a = await pending(running, 'signed');
    const assertion = await signed(running, first, key, a.id, 'approved');
    const r = await post(running, first, `/approvals/${a.id}/decision`, { decision: 'approved', assertion });
    expect(r.status).toBe(200);
    const stored = await running.ctx.store.getApproval(a.id);
    expect(stored).toMatchObject({
      status: 'approved',
      decided_via: 'console',
      assertion: {
        credentialId: key.credentialId,
        algorithm: 'ES256',
        nonce: assertion.nonce,
        planHash: a.plan_hash,
      },
    });
    const { events } = await running.ctx.store.queryAudit({ limit: 5 });
    const event = events.find((e) => e.phase === 'approval' && e.payload.approvalId === a.id);
    expect(event?.payload.assertion).toEqual(stored?.assertion);
    expect((await verifyAuditStore(running.ctx.store)).ok).toBe(true);

    // Sent again, the same signature is refused: its nonce is spent.
    const again = await post(running, first, `/approvals/${a.id}/decision`, {
      decision: 'approved',
      assertion,
    });
    expect(again.status).toBe(409);
    expect(code(again)).toBe('assertion_replayed');

    // A changed signature in the stored event: verify names the event.
    const db = new Database(join(t.instanceDir, STORE_FILE));
    const flipped = `${String(stored?.assertion?.signature).slice(0, -4)}AAAA`;
    db.prepare("UPDATE audit SET payload = json_set(payload, '$.assertion.signature', ?) WHERE seq = ?").run(
      flipped,
      event?.seq,
    );
    db.close();
    const verdict = await verifyAuditStore(running.ctx.store);
    expect(verdict.ok).toBe(false);
    expect(verdict.problem).toMatchObject({ kind: 'forged_decision', seq: event?.seq });
    expect(verdict.problem?.message).toContain(`event ${event?.seq}`);
  });

  it('spends a nonce on its first attempt: a failed signature cannot be sent again (assertion_replayed)', async () => {
    const a = await pending(running, 'replay');
    const { nonce, response } = await signed(running, first, key, a.id, 'denied');
    const bad = { ...response, response: { ...(response.response as object), signature: 'AAAA' } };
    const r1 = await post(running, first, `/approvals/${a.id}/decision`, {
      decision: 'denied',
      assertion: { nonce, response: bad },
    });
    expect(r1.status).toBe(400);
    expect(code(r1)).toBe('passkey_invalid');
    const r2 = await post(running, first, `/approvals/${a.id}/decision`, {
      decision: 'denied',
      assertion: { nonce, response },
    });
    expect(r2.status).toBe(409);
    expect(code(r2)).toBe('assertion_replayed');
    const unknown = await post(running, first, `/approvals/${a.id}/decision`, {
      decision: 'denied',
      assertion: { nonce: 'never-handed-out', response },
    });
    expect(code(unknown)).toBe('assertion_replayed');
    expect((await running.ctx.store.getApproval(a.id))?.status).toBe('pending');
  });

  it('sees only the passkeys made for its own address: another address of the instance signs in by link', async () => {
    const other = await startConsole({
      instanceDir: t.instanceDir,
      listen: '127.0.0.1:0',
      publicUrl: 'https://other.test',
    });
    const local = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
    try {
      const path = new URL(other.loginUrl()).pathname + new URL(other.loginUrl()).search;
      const login = await throughProxy(other, path, { headers: { host: 'other.test' } });
      expect(login.status).toBe(303);
      const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
      const list = await throughProxy(other, '/api/passkeys', { headers: { host: 'other.test', cookie } });
      expect(list.json).toMatchObject({
        rpId: 'other.test',
        enrolable: true,
        passkeys: [],
        signDecisions: false,
      });
      const api = await apiClient(local);
      expect((await api.get('/passkeys')).body).toMatchObject({
        rpId: '127.0.0.1',
        enrolable: false,
        passkeys: [],
      });
    } finally {
      await other.close();
      await local.close();
    }
  });
});

describe('a loopback console with a passkey', () => {
  it('still signs in by link, but once a passkey is enrolled a decision needs its signature, and another passkey one enrolled already [SEC-28]', async () => {
    const t = await makeInstance();
    const running = await startConsole({ instanceDir: t.instanceDir, listen: 'localhost:0' });
    try {
      expect(running.origin).toBe(`http://localhost:${running.port}`);
      const api = await apiClient(running);
      const key = fakeAuthenticator();
      // Before any passkey, the link's session decides unsigned: what a program holding the
      // operator token (or a login link) could do on loopback.
      const before = await pending(running, 'before the passkey');
      expect((await api.post(`/approvals/${before.id}/decision`, { decision: 'denied' })).status).toBe(200);
      const options = (await api.post('/passkeys/register/options', { label: 'desk' })).body.options as {
        challenge: string;
        rp: { id: string };
      };
      expect(options.rp.id).toBe('localhost');
      expect(
        (await api.post('/passkeys/register', { response: key.register(options, running.origin) })).status,
      ).toBe(200);
      expect((await api.get('/passkeys')).body).toMatchObject({
        signDecisions: true,
        signingRequired: true,
      });
      // The link still signs in on loopback, but that session alone no longer decides.
      const again = await apiClient(running);
      const plain = await pending(running, 'at the desk');
      const unsigned = await again.post(`/approvals/${plain.id}/decision`, { decision: 'approved' });
      expect(unsigned.status).toBe(403);
      expect(unsigned.body).toMatchObject({ error: { code: 'passkey_required' } });
      expect((await running.ctx.store.getApproval(plain.id))?.status).toBe('pending');
      // Nor can it enrol a passkey of its own to sign with: that needs an enrolled one's signature.
      const own = fakeAuthenticator();
      const ask = await again.post('/passkeys/register/options', { label: 'intruder' });
      expect(ask.body.options).toBeUndefined();
      const stepUp = (ask.body.stepUp as { challenge: string }).challenge;
      const refused = await again.post('/passkeys/register/options', {
        label: 'intruder',
        proof: own.assert(stepUp, 'localhost', running.origin),
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: { code: 'passkey_invalid' } });
      expect(running.ctx.passkeys.list().map((p) => p.label)).toEqual(['desk']);
      const signedOne = await pending(running, 'signed at the desk');
      const challenge = await again.post(`/approvals/${signedOne.id}/challenge`, { decision: 'approved' });
      const response = key.assert(
        (challenge.body.options as { challenge: string }).challenge,
        'localhost',
        running.origin,
      );
      const decided = await again.post(`/approvals/${signedOne.id}/decision`, {
        decision: 'approved',
        assertion: { nonce: challenge.body.nonce, response },
      });
      expect(decided.status).toBe(200);
      expect((await running.ctx.store.getApproval(signedOne.id))?.assertion?.credentialId).toBe(
        key.credentialId,
      );
    } finally {
      await running.close();
      t.cleanup();
    }
  });
});

describe('the rate limit of logins, passkeys and decisions', () => {
  // A console behind a TLS proxy, its budgets full: each test starts one of its own.
  let t: Awaited<ReturnType<typeof makeInstance>>;
  let running: RunningConsole;
  beforeEach(async () => {
    t = await makeInstance();
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0', publicUrl: PUBLIC });
  });
  afterEach(async () => {
    await running.close();
    t.cleanup();
  });

  it('answers 429 rate_limited with Retry-After once an address spent its burst', async () => {
    const statuses: number[] = [];
    let last: Answer | undefined;
    for (let i = 0; i < RATE_BURST + 2; i++) {
      last = await throughProxy(running, `/?token=wrong-${i}`);
      statuses.push(last.status);
    }
    expect(statuses.slice(0, RATE_BURST)).toEqual(Array(RATE_BURST).fill(401));
    expect(statuses.slice(RATE_BURST)).toEqual([429, 429]);
    expect(code(last as Answer)).toBe('rate_limited');
    expect(Number((last as Answer).headers['retry-after'])).toBeGreaterThan(0);
  });

  it("counts each client behind the proxy by the address the proxy added, not the proxy's own", async () => {
    const from = (forwarded: string, i: number) =>
      throughProxy(running, `/?token=wrong-${i}`, { headers: { 'x-forwarded-for': forwarded } });
    const statuses: number[] = [];
    for (let i = 0; i < RATE_BURST + 1; i++) statuses.push((await from('203.0.113.7', i)).status);
    expect(statuses.slice(RATE_BURST)).toEqual([429]);
    // What a client writes before the proxy's own entry changes nothing.
    expect((await from('198.51.100.9, 203.0.113.7', 100)).status).toBe(429);
    // Another person behind the same proxy still signs in (here: is told the link is wrong).
    const other = await from('203.0.113.7, 198.51.100.9', 101);
    expect(other.status).toBe(401);
    expect(other.text).toContain('<h1>This login link was already used</h1>');
  });
});

describe('decision nonces beside anonymous sign-in challenges', () => {
  // A console behind a TLS proxy with a passkey, and a person signed in by the link.
  let t: TestInstance;
  let running: RunningConsole;
  let key: FakeAuthenticator;
  let person: Browserish;

  beforeAll(async () => {
    t = await makeInstance();
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0', publicUrl: PUBLIC });
    key = fakeAuthenticator();
    person = (await linkLogin(running)).session as Browserish;
    const options = await post(running, person, '/passkeys/register/options', { label: 'phone' });
    const o = options.json.options as { challenge: string; rp: { id: string } };
    expect(
      (await post(running, person, '/passkeys/register', { response: key.register(o, PUBLIC) })).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await running?.close();
    t?.cleanup();
  });

  /** An anonymous sign-in challenge, asked by the client the proxy names `client`. */
  const loginOptions = (client: string) =>
    throughProxy(running, '/api/passkeys/login/options', {
      method: 'POST',
      body: {},
      headers: { origin: PUBLIC, 'x-forwarded-for': client },
    });

  it("keeps a person's decision nonce through 1 100 anonymous login/options requests, which evict only older sign-in challenges [SEC-28]", async () => {
    const a = await pending(running, 'flood');
    const assertion = await signed(running, person, key, a.id, 'approved');
    // A sign-in challenge handed out at the same moment as the nonce. Before the fix both sat in one
    // pool of 1 000 with the oldest dropped first; this challenge's fate below is what the flood did
    // to the nonce then.
    const early = await loginOptions('192.0.2.200');
    const earlyChallenge = (early.json.options as { challenge: string }).challenge;
    // 1 100 clients behind the proxy, one request each (the rate limit counts each apart).
    const statuses = new Set<number>();
    for (let batch = 0; batch < 11; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => loginOptions(`10.0.${batch}.${i + 1}`)),
      );
      for (const r of answers) statuses.add(r.status);
    }
    expect([...statuses]).toEqual([200]);
    // The anonymous pool's own cap dropped the early challenge: a sign-in with it is refused.
    const late = await throughProxy(running, '/api/passkeys/login', {
      method: 'POST',
      body: { response: key.assert(earlyChallenge, RP_ID, PUBLIC) },
      headers: { origin: PUBLIC },
    });
    expect(late.status).toBe(400);
    expect(code(late)).toBe('passkey_invalid');
    expect(late.text).toContain('was not started here, was used already, or expired');
    // The nonce lives in the person's session, out of the flood's reach: the signed decision holds.
    const r = await post(running, person, `/approvals/${a.id}/decision`, { decision: 'approved', assertion });
    expect(r.status).toBe(200);
    expect((await running.ctx.store.getApproval(a.id))?.assertion?.nonce).toBe(assertion.nonce);
  });

  it('finds a nonce only in the session it was handed to: another session cannot spend it [SEC-28]', async () => {
    const a = await pending(running, 'other session');
    const options = await loginOptions('192.0.2.201');
    const signedIn = await throughProxy(running, '/api/passkeys/login', {
      method: 'POST',
      body: {
        response: key.assert((options.json.options as { challenge: string }).challenge, RP_ID, PUBLIC),
      },
      headers: { origin: PUBLIC },
    });
    const other = await sessionOf(running, String(signedIn.headers['set-cookie']));
    // Signed after that sign-in, so the passkey's counter has moved past it.
    const assertion = await signed(running, person, key, a.id, 'denied');
    const stolen = await post(running, other, `/approvals/${a.id}/decision`, {
      decision: 'denied',
      assertion,
    });
    expect(stolen.status).toBe(409);
    expect(code(stolen)).toBe('assertion_replayed');
    expect((await running.ctx.store.getApproval(a.id))?.status).toBe('pending');
    const own = await post(running, person, `/approvals/${a.id}/decision`, { decision: 'denied', assertion });
    expect(own.status).toBe(200);
  });
});
