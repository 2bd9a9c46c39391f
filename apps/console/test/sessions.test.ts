// Console sessions end: at the idle limit, at the lifetime, and at logout. Each rule against a real
// listener over real HTTP; time is the console's injected clock, moved by the test, never waited on.
import { type IncomingMessage, request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CSRF_HEADER,
  parseConsoleFlags,
  type RunningConsole,
  resolveConsoleOptions,
  startConsole,
} from '../src/index';
import { BACKGROUND_HEADER, SESSION_ENDED_EVENT } from '../src/wire';
import { makeInstance, type TestInstance } from './helpers/instance';

const MIN = 60_000;
const HOUR = 60 * MIN;

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** One HTTP request, read to its end. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const errorOf = (a: Answer) => (JSON.parse(a.body) as { error: { code: string; message: string } }).error;

/** A logged-in browser, as far as the server can tell: its cookie and CSRF token. */
interface Login {
  cookie: string;
  csrf: string;
  get(path: string, headers?: Record<string, string>): Promise<Answer>;
  logout(headers?: Record<string, string>): Promise<Answer>;
}

async function login(running: RunningConsole): Promise<Login> {
  const r = await raw(running.loginUrl());
  expect(r.status).toBe(303);
  const cookie = String(r.headers['set-cookie']).split(';')[0] ?? '';
  const s = await raw(`${running.origin}/api/session`, { headers: { cookie } });
  const csrf = (JSON.parse(s.body) as { csrf: string }).csrf;
  return {
    cookie,
    csrf,
    get: (path, headers = {}) => raw(`${running.origin}${path}`, { headers: { cookie, ...headers } }),
    logout: (headers = { origin: running.origin, [CSRF_HEADER]: csrf }) =>
      raw(`${running.origin}/api/session/logout`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: '{}',
      }),
  };
}

/** An open `GET /api/events`: the text so far, a wait for a pattern, and its end. */
function openEvents(running: RunningConsole, cookie: string) {
  let text = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  let status = 0;
  const ended = new Promise<void>((resolveEnd, reject) => {
    const req = request(`${running.origin}/api/events`, { headers: { cookie } }, (res) => {
      status = res.statusCode ?? 0;
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        for (const w of waiters.filter((w) => w.pattern.test(text))) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      });
      res.on('end', () => resolveEnd());
    });
    req.on('error', reject);
    req.end();
  });
  return {
    text: () => text,
    status: () => status,
    ended,
    /** Resolves when the stream's text so far matches `pattern` (an I/O wait, not a timer). */
    until: (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        if (pattern.test(text)) resolve();
        else waiters.push({ pattern, resolve });
      }),
  };
}

/** The data of a stream's `session-ended` event; `undefined` when it sent none. */
function endedData(text: string): unknown {
  const event = text.split('\n\n').find((e) => e.startsWith(`event: ${SESSION_ENDED_EVENT}\n`));
  return event === undefined ? undefined : JSON.parse(event.split('\ndata: ')[1] ?? 'null');
}

describe('console session expiry', () => {
  let t: TestInstance;
  let running: RunningConsole;
  let now = 0;
  beforeAll(async () => {
    t = await makeInstance();
    // The defaults (30 min idle, 12 h lifetime), with time the test moves.
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0', clock: () => now });
  });
  afterAll(async () => {
    await running?.close();
    t?.cleanup();
  });
  beforeEach(() => {
    now = Date.parse('2030-01-01T09:00:00Z');
  });

  it('answers 401 session_expired once a session went unused for the idle limit, saying how to get a new login link [SEC-20]', async () => {
    const s = await login(running);
    now += 30 * MIN - 1;
    expect((await s.get('/api/approvals')).status).toBe(200);
    // That request was activity: the idle time starts again from it.
    now += 30 * MIN - 1;
    expect((await s.get('/api/approvals')).status).toBe(200);
    now += 30 * MIN;
    const expired = await s.get('/api/approvals');
    expect(expired.status).toBe(401);
    expect(errorOf(expired)).toEqual({
      code: 'session_expired',
      message:
        'This console session expired: nothing was done in it for 30 min (the idle limit). To continue, open a new login link: `harness console` prints one when it starts (stop it with Ctrl-C and start it again; pending approvals wait in the store).',
    });
    // The cookie is cleared, and the ended session stays refused with the same reason.
    expect(String(expired.headers['set-cookie'])).toMatch(/^harness_console=;.*Max-Age=0/);
    expect(errorOf(await s.get('/api/session')).code).toBe('session_expired');
    const page = await s.get('/');
    expect(page.status).toBe(401);
    expect(page.body).toContain('This console session expired');
    expect(page.body).toContain('`harness console` prints one');
  });

  it("does not count the page's own refreshes after a live update as activity, so an unattended page goes idle [SEC-20]", async () => {
    const s = await login(running);
    now += 20 * MIN;
    expect((await s.get('/api/approvals', { [BACKGROUND_HEADER]: '1' })).status).toBe(200);
    now += 10 * MIN;
    const expired = await s.get('/api/approvals');
    expect(expired.status).toBe(401);
    expect(errorOf(expired).code).toBe('session_expired');
  });

  it('ends a session at its lifetime however busy it is [SEC-20]', async () => {
    const s = await login(running);
    for (let elapsed = 0; elapsed + 29 * MIN < 12 * HOUR; elapsed += 29 * MIN) {
      now += 29 * MIN;
      expect((await s.get('/api/approvals')).status).toBe(200);
    }
    now += 29 * MIN;
    const expired = await s.get('/api/approvals');
    expect(expired.status).toBe(401);
    expect(errorOf(expired)).toMatchObject({
      code: 'session_expired',
      message: expect.stringContaining('it was opened 12 h ago'),
    });
  });

  it('closes an open live-updates stream whose session expired, sending why instead of the update [SEC-20]', async () => {
    const s = await login(running);
    const events = openEvents(running, s.cookie);
    await events.until(/event: hello/);
    expect(events.status()).toBe(200);
    now += 30 * MIN;
    running.ctx.watch.publish({ topic: 'approvals', value: 'after-expiry' });
    await events.ended;
    expect(events.text()).not.toContain('after-expiry');
    expect(endedData(events.text())).toMatchObject({ code: 'session_expired', reason: 'idle' });
    // And a new stream of that session is refused outright.
    const again = await s.get('/api/events');
    expect(again.status).toBe(401);
    expect(errorOf(again).code).toBe('session_expired');
  });
});

describe('console logout', () => {
  let t: TestInstance;
  let running: RunningConsole;
  beforeAll(async () => {
    t = await makeInstance();
    running = await startConsole({ instanceDir: t.instanceDir, listen: '127.0.0.1:0' });
  });
  afterAll(async () => {
    await running?.close();
    t?.cleanup();
  });

  it('ends the session on the server: after POST /api/session/logout the same cookie gets 401 [SEC-20]', async () => {
    const s = await login(running);
    const out = await s.logout();
    expect(out.status).toBe(200);
    expect(JSON.parse(out.body)).toMatchObject({
      signedOut: true,
      message: expect.stringContaining('logged out'),
    });
    expect(String(out.headers['set-cookie'])).toMatch(/^harness_console=;.*Max-Age=0/);
    // The browser may keep the cookie; the server no longer knows it.
    for (const path of ['/api/approvals', '/api/session', '/api/events']) {
      const r = await s.get(path);
      expect(`${path} ${r.status}`).toBe(`${path} 401`);
      expect(errorOf(r)).toMatchObject({
        code: 'unauthenticated',
        message: expect.stringContaining('logged out'),
      });
    }
    expect((await s.get('/')).status).toBe(401);
  });

  it("is refused without this page's Origin and CSRF token, and the session goes on", async () => {
    const s = await login(running);
    const noCsrf = await s.logout({ origin: running.origin });
    expect(noCsrf.status).toBe(403);
    expect(errorOf(noCsrf).code).toBe('csrf_invalid');
    const otherOrigin = await s.logout({ origin: 'http://evil.example', [CSRF_HEADER]: s.csrf });
    expect(otherOrigin.status).toBe(403);
    expect(errorOf(otherOrigin).code).toBe('forbidden_origin');
    expect((await s.get('/api/approvals')).status).toBe(200);
  });

  it('closes the live-updates stream of the session that logged out, and only that one [SEC-20]', async () => {
    const leaving = await login(running);
    const staying = await login(running);
    const gone = openEvents(running, leaving.cookie);
    const kept = openEvents(running, staying.cookie);
    await Promise.all([gone.until(/event: hello/), kept.until(/event: hello/)]);
    expect((await leaving.logout()).status).toBe(200);
    await gone.ended;
    expect(endedData(gone.text())).toMatchObject({ code: 'unauthenticated', reason: 'logged_out' });
    running.ctx.watch.publish({ topic: 'approvals', value: 'still-live' });
    await kept.until(/still-live/);
    expect(kept.text()).not.toContain(SESSION_ENDED_EVENT);
  });
});

describe('console session limits', () => {
  it('takes --session-idle and --session-lifetime as durations, by default 30 min and 12 h', async () => {
    expect(parseConsoleFlags([])).toMatchObject({ sessionIdleMs: 30 * MIN, sessionLifetimeMs: 12 * HOUR });
    const flags = parseConsoleFlags(['--session-idle', '10m', '--session-lifetime', '2h']);
    expect(flags).toMatchObject({ sessionIdleMs: 10 * MIN, sessionLifetimeMs: 2 * HOUR });
    const options = await resolveConsoleOptions(flags, '/nowhere', {});
    expect(options).toMatchObject({ sessionIdleMs: 10 * MIN, sessionLifetimeMs: 2 * HOUR });
  });

  it('refuses a duration without a unit or over 24h as a usage error that shows the notation', () => {
    expect(() => parseConsoleFlags(['--session-idle', '1800000'])).toThrowErrorMatchingInlineSnapshot(
      `[ConsoleError: --session-idle must be a duration with a unit, more than 0 and at most 24h (e.g. 90s, 30m, 12h), found '1800000']`,
    );
    expect(() => parseConsoleFlags(['--session-lifetime', '25h'])).toThrow(
      expect.objectContaining({ code: 'usage' }),
    );
  });

  it('refuses an idle limit longer than the lifetime before it listens', async () => {
    const t = await makeInstance();
    try {
      await expect(
        startConsole({
          instanceDir: t.instanceDir,
          listen: '127.0.0.1:0',
          sessionIdleMs: 2 * HOUR,
          sessionLifetimeMs: HOUR,
        }),
      ).rejects.toMatchObject({
        code: 'usage',
        message:
          'the session idle limit (2 h) is longer than the session lifetime (1 h), so it would never apply; make --session-idle at most --session-lifetime',
      });
    } finally {
      t.cleanup();
    }
  });

  it('applies the configured limits: a 10 min idle limit ends a session unused for 10 min [SEC-20]', async () => {
    const t = await makeInstance();
    let now = Date.parse('2030-01-01T09:00:00Z');
    const running = await startConsole({
      instanceDir: t.instanceDir,
      listen: '127.0.0.1:0',
      sessionIdleMs: 10 * MIN,
      clock: () => now,
    });
    try {
      const s = await login(running);
      now += 10 * MIN;
      const expired = await s.get('/api/approvals');
      expect(expired.status).toBe(401);
      expect(errorOf(expired).message).toContain('for 10 min (the idle limit)');
    } finally {
      await running.close();
      t.cleanup();
    }
  });
});
