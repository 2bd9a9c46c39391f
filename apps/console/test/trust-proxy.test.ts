// Whom the console believes forwarded headers from, over real HTTP from two real peers: loopback
// (standing for a proxy on this machine) and this machine's own non-loopback address (a client that
// reached the listener directly, or a proxy named with --trust-proxy). Each attack of the review
// (a client writing X-Forwarded-Proto to be served plain HTTP, X-Forwarded-For to escape the rate
// limit or spend another person's budget, /metrics over plain HTTP) is refused, and beside it the
// same header from a trusted peer counts.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConsoleFlags, type RunningConsole, resolveConsoleOptions, startConsole } from '../src/index';
import { RATE_BURST } from '../src/server/rate-limit';
import { makeInstance, type TestInstance } from './helpers/instance';
import { testCertificate } from './helpers/tls';

const PUBLIC = 'https://console.test';
const HOST = 'console.test';
const TOKEN = 'operator-token-0123456789abcdef0123456789';
const METRICS_TOKEN = 'metrics-token-0123456789abcdef0123456789';
/** A proxy address that is not this machine: trusted, but never the peer of these tests. */
const ELSEWHERE = '198.51.100.1';

/** This machine's first non-loopback IPv4 address: a peer the console does not see as loopback. */
function outsideAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  throw new Error(
    'these tests need a network interface other than loopback (a peer address the console does not trust by itself)',
  );
}
const OUTSIDE = outsideAddress();

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  code: string | undefined;
}

/** One request to `address:port`, with the headers given as they are (Host too); https when `ca`. */
function send(
  address: string,
  port: number,
  path: string,
  headers: Record<string, string>,
  ca?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const done = (res: import('node:http').IncomingMessage) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8');
      });
      res.on('end', () => {
        let code: string | undefined;
        try {
          code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
        } catch {}
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, code });
      });
    };
    const options = { host: address, port, path, method: 'GET', headers };
    const req =
      ca === undefined
        ? httpRequest(options, done)
        : httpsRequest({ ...options, ca, checkServerIdentity: () => undefined }, done);
    req.on('error', reject);
    req.end();
  });
}

/** The path and query of a fresh login link. */
const linkPath = (running: RunningConsole) => {
  const url = new URL(running.loginUrl());
  return `${url.pathname}${url.search}`;
};

describe('starting behind a proxy [SEC-28]', () => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await makeInstance();
  });
  afterAll(() => t?.cleanup());

  it('refuses a non-loopback listener behind --public-url alone, and starts once --trust-proxy names the proxy [SEC-28]', async () => {
    const flags = parseConsoleFlags(['--listen', '0.0.0.0:0', '--public-url', PUBLIC]);
    await expect(
      startConsole({ ...(await resolveConsoleOptions(flags, t.instanceDir, {})), token: TOKEN }),
    ).rejects.toMatchObject({
      code: 'tls_required',
      message:
        '--listen 0.0.0.0:0 is not loopback and the console has no TLS of its own: with --public-url alone, anyone who reaches 0.0.0.0:0 directly would be served plain HTTP by writing X-Forwarded-Proto: https; name the TLS reverse proxy with --trust-proxy <its IP address> (its forwarded headers are then the only ones believed), or give --tls-cert <pem> and --tls-key <pem>, or listen on 127.0.0.1 behind the proxy',
    });
    const named = parseConsoleFlags([
      '--listen',
      '0.0.0.0:0',
      '--public-url',
      PUBLIC,
      '--trust-proxy',
      ELSEWHERE,
    ]);
    const running = await startConsole({
      ...(await resolveConsoleOptions(named, t.instanceDir, {})),
      token: TOKEN,
    });
    await running.close();
  });

  it('takes --trust-proxy repeated or comma-separated, as IP addresses only, and says what it takes [SEC-28]', async () => {
    const flags = parseConsoleFlags([
      '--trust-proxy',
      '10.0.0.5, fd00:0::5',
      '--trust-proxy',
      '::ffff:10.0.0.6',
      '--trust-proxy',
      '10.0.0.5',
    ]);
    expect((await resolveConsoleOptions(flags, t.instanceDir, {})).trustProxy).toEqual([
      '10.0.0.5',
      'fd00::5',
      '10.0.0.6',
    ]);
    for (const value of ['proxy.example', '10.0.0.0/8', '']) {
      const bad = parseConsoleFlags(['--trust-proxy', value]);
      await expect(resolveConsoleOptions(bad, t.instanceDir, {})).rejects.toMatchObject({
        code: 'trust_proxy_invalid',
        message: `--trust-proxy takes the IP address the reverse proxy connects from (e.g. 10.0.0.5 or fd00::5; repeat the flag or separate addresses with commas), found ${JSON.stringify(value)}`,
      });
    }
  });
});

describe('a console on a non-loopback address behind a named TLS proxy [SEC-28]', () => {
  // The proxy is named (ELSEWHERE) but not this machine: a request from OUTSIDE is a client that
  // reached the listener directly; one from loopback is the proxy's.
  let t: TestInstance;
  let running: RunningConsole;
  const direct = (path: string, headers: Record<string, string> = {}) =>
    send(OUTSIDE, running.port, path, { host: HOST, ...headers });
  const viaProxy = (path: string, headers: Record<string, string> = {}) =>
    send('127.0.0.1', running.port, path, { host: HOST, ...headers });

  beforeAll(async () => {
    t = await makeInstance();
    running = await startConsole({
      instanceDir: t.instanceDir,
      listen: '0.0.0.0:0',
      token: TOKEN,
      metricsToken: METRICS_TOKEN,
      publicUrl: PUBLIC,
      trustProxy: [ELSEWHERE],
    });
  });
  afterAll(async () => {
    await running?.close();
    t?.cleanup();
  });

  it('serves a client that reached it directly nothing, whatever X-Forwarded-Proto or Forwarded it wrote (https_required) [SEC-28]', async () => {
    const link = linkPath(running);
    for (const headers of [
      { 'x-forwarded-proto': 'https' },
      { forwarded: 'for=203.0.113.9;proto=https' },
      { 'x-forwarded-proto': 'https', 'x-forwarded-for': '127.0.0.1' },
    ]) {
      const r = await direct(link, headers);
      expect(r.status).toBe(403);
      expect(r.code).toBe('https_required');
      expect(r.text).toContain('connect from loopback or an address given with --trust-proxy');
      expect(r.headers['set-cookie']).toBeUndefined();
    }
    // The same link, through the proxy: the header counts, and the link was not spent above.
    const proxied = await viaProxy(link, { 'x-forwarded-proto': 'https' });
    expect(proxied.status).toBe(303);
    expect(String(proxied.headers['set-cookie'])).toMatch(/Secure/);
  });

  it('lets no direct client try the operator token: 120 attempts with a new X-Forwarded-For each are all refused before any login [SEC-28]', async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < 120; i++) {
      const r = await direct(`/?token=guess-${i}`, {
        'x-forwarded-proto': 'https',
        'x-forwarded-for': `203.0.113.${i}`,
      });
      statuses.add(r.status);
    }
    expect([...statuses]).toEqual([403]);
    // Nor did those requests spend the budget of a client they named (203.0.113.7 behind the proxy).
    for (let i = 0; i < RATE_BURST; i++) {
      await direct('/?token=guess', { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' });
    }
    const person = await viaProxy('/?token=guess', {
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '203.0.113.7',
    });
    expect(person.status).toBe(401);
    // Behind the proxy the header counts: each client has a budget of its own, so 40 clients
    // each trying once are each told the token is wrong, none rate limited.
    const proxied = new Set<number>();
    for (let i = 0; i < RATE_BURST + 10; i++) {
      const r = await viaProxy(`/?token=guess-${i}`, {
        'x-forwarded-proto': 'https',
        'x-forwarded-for': `203.0.113.${i}`,
      });
      proxied.add(r.status);
    }
    expect([...proxied]).toEqual([401]);
  });

  it('serves /metrics only over https as the proxy says: a direct scrape with the token is refused, whatever it writes [SEC-28]', async () => {
    const bearer = { authorization: `Bearer ${METRICS_TOKEN}` };
    const forged = await direct('/metrics', { ...bearer, 'x-forwarded-proto': 'https' });
    expect(forged.status).toBe(403);
    expect(forged.code).toBe('https_required');
    const plain = await viaProxy('/metrics', bearer);
    expect(plain.status).toBe(403);
    expect(plain.code).toBe('https_required');
    const proxied = await viaProxy('/metrics', { ...bearer, 'x-forwarded-proto': 'https' });
    expect(proxied.status).toBe(200);
    expect(proxied.text).toContain('harness_approvals_pending 0');
  });
});

describe('a console serving TLS itself, with a named proxy [SEC-28]', () => {
  // Both peers reach it over TLS; loopback stands for the named proxy, OUTSIDE for a direct client.
  let t: TestInstance;
  let running: RunningConsole;
  let ca: string;

  beforeAll(async () => {
    t = await makeInstance();
    const tls = testCertificate(t.root);
    ca = tls.cert;
    running = await startConsole({
      instanceDir: t.instanceDir,
      listen: '0.0.0.0:0',
      token: TOKEN,
      tls,
      trustProxy: [ELSEWHERE],
    });
  });
  afterAll(async () => {
    await running?.close();
    t?.cleanup();
  });

  it("counts a direct client by its own address: a new X-Forwarded-For each time escapes no limit, and spends no one else's budget [SEC-28]", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < RATE_BURST + 1; i++) {
      const r = await send(
        OUTSIDE,
        running.port,
        `/?token=guess-${i}`,
        { 'x-forwarded-for': `203.0.113.${i}` },
        ca,
      );
      statuses.push(r.status);
    }
    expect(statuses.slice(0, RATE_BURST)).toEqual(Array(RATE_BURST).fill(401));
    expect(statuses.slice(RATE_BURST)).toEqual([429]);
    // The client it named (203.0.113.7), behind the proxy, still has its whole budget.
    const person = await send(
      '127.0.0.1',
      running.port,
      '/?token=guess',
      { 'x-forwarded-for': '203.0.113.7' },
      ca,
    );
    expect(person.status).toBe(401);
    // And the proxy's clients are counted apart, by the address it adds.
    const proxied: number[] = [];
    for (let i = 0; i < RATE_BURST + 1; i++) {
      const r = await send(
        '127.0.0.1',
        running.port,
        `/?token=guess-${i}`,
        { 'x-forwarded-for': `198.51.100.${i}` },
        ca,
      );
      proxied.push(r.status);
    }
    expect(proxied).toEqual(Array(RATE_BURST + 1).fill(401));
  });
});

describe('a proxy named with --trust-proxy, at a non-loopback address [SEC-28]', () => {
  // The listener is on `::`, so the proxy's IPv4 address arrives IPv4-mapped (::ffff:…).
  let t: TestInstance;
  let running: RunningConsole;
  const fromProxy = (path: string, headers: Record<string, string> = {}) =>
    send(OUTSIDE, running.port, path, { host: HOST, ...headers });

  beforeAll(async () => {
    t = await makeInstance();
    running = await startConsole({
      instanceDir: t.instanceDir,
      listen: '[::]:0',
      token: TOKEN,
      publicUrl: PUBLIC,
      trustProxy: [OUTSIDE],
    });
  });
  afterAll(async () => {
    await running?.close();
    t?.cleanup();
  });

  it('believes its X-Forwarded-Proto or Forwarded, and still refuses a request it says came over plain HTTP [SEC-28]', async () => {
    expect((await fromProxy(linkPath(running), { 'x-forwarded-proto': 'https' })).status).toBe(303);
    expect(
      (await fromProxy(linkPath(running), { forwarded: 'for=203.0.113.9;proto=https;by=10.0.0.5' })).status,
    ).toBe(303);
    for (const headers of [
      {},
      { 'x-forwarded-proto': 'http' },
      { forwarded: 'for=203.0.113.9;proto=http' },
    ]) {
      const r = await fromProxy(linkPath(running), headers);
      expect(r.status).toBe(403);
      expect(r.code).toBe('https_required');
    }
  });

  it('counts each client by the address it added, in X-Forwarded-For or Forwarded [SEC-28]', async () => {
    const https = { 'x-forwarded-proto': 'https' };
    const statuses: number[] = [];
    for (let i = 0; i < RATE_BURST + 1; i++) {
      const r = await fromProxy(`/?token=guess-${i}`, { ...https, 'x-forwarded-for': '203.0.113.20' });
      statuses.push(r.status);
    }
    expect(statuses.at(-1)).toBe(429);
    // The same client named in Forwarded (quoted, with a port) is the same budget...
    const again = await fromProxy('/?token=guess', { forwarded: 'for="203.0.113.20:4711";proto=https' });
    expect(again.status).toBe(429);
    // ...and another client behind it has its own.
    const other = await fromProxy('/?token=guess', { ...https, 'x-forwarded-for': '203.0.113.21' });
    expect(other.status).toBe(401);
  });
});
