// The console's security rules, each against a real listener over real HTTP.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, CSRF_HEADER, type RunningConsole, startConsole } from '../src/index';
import { makeInstance, type TestInstance } from './helpers/instance';

/** A raw HTTP request (fetch cannot set Host or Origin freely). */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | undefined } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
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

/** Logs in with a one-time URL; returns the cookie header and the session's CSRF token. */
async function login(running: RunningConsole): Promise<{ cookie: string; csrf: string }> {
  const r = await raw(running.loginUrl());
  expect(r.status).toBe(303);
  const setCookie = String(r.headers['set-cookie']);
  const cookie = setCookie.split(';')[0] ?? '';
  const s = await raw(`${running.origin}/api/session`, { headers: { cookie } });
  return { cookie, csrf: (JSON.parse(s.body) as { csrf: string }).csrf };
}

describe('console security', () => {
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

  it('listens on loopback by default and prints a URL with a one-time token', async () => {
    const { parseConsoleFlags } = await import('../src/index');
    expect(parseConsoleFlags([]).listen).toBe('127.0.0.1:8787');
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
  });

  it('turns the token into an HttpOnly, SameSite=Strict session cookie, and the token works once', async () => {
    const url = running.loginUrl();
    const first = await raw(url);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    const setCookie = String(first.headers['set-cookie']);
    expect(setCookie).toMatch(/^harness_console=[A-Za-z0-9_-]+;/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    const again = await raw(url);
    expect(again.status).toBe(401);
    expect(again.body).toContain('logs in once');
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('answers a login link used already with the console page saying the command that prints a new link, and no script', async () => {
    const url = running.loginUrl();
    expect((await raw(url)).status).toBe(303);
    const again = await raw(url);
    expect(again.status).toBe(401);
    expect(again.headers['content-type']).toMatch(/^text\/html/);
    expect(again.body).toContain('<link rel="stylesheet" href="/assets/app.css" />');
    expect(again.body).toContain('<header><span class="brand">harness console</span></header>');
    expect(again.body).toContain('<h1>This login link was already used</h1>');
    expect(again.body).toContain(
      '<p>To get a new link, stop the running console (Ctrl-C in its terminal) and start it again with the same options; it prints a new link:</p>\n<pre><code>harness console</code></pre>',
    );
    expect(again.body).not.toContain('<script');
    expect(again.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  });

  it('takes a login link used already to the console in the browser it logged in, without a new session', async () => {
    const url = running.loginUrl();
    const first = await raw(url);
    const cookie = String(first.headers['set-cookie']).split(';')[0] ?? '';
    const again = await raw(url, { headers: { cookie } });
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe('/');
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('redirects only within this console: a login at //evil.example/ or /\\evil.example/ lands on /, never on another host [SEC-28]', async () => {
    const token = (url: string) => new URL(url).searchParams.get('token') ?? '';
    const at = (path: string, headers: Record<string, string> = {}) =>
      raw(`${running.origin}${path}`, { headers });
    // The redirect follows the path the link was opened at, without its token: that is why a path
    // a browser reads as another host (`//host`, `/\\host`) would have sent the person there.
    const kept = await at(`/login?x=1&token=${token(running.loginUrl())}`);
    expect(kept.status).toBe(303);
    expect(kept.headers.location).toBe('/login?x=1');
    for (const path of ['//evil.example/', '/\\evil.example/', '//evil.example/%2F..']) {
      const url = running.loginUrl();
      const fresh = await at(`${path}?token=${token(url)}`);
      expect(`${path} ${fresh.status} ${fresh.headers.location}`).toBe(`${path} 303 /`);
      // The link used already, in the browser it logged in: the same redirect, to `/`.
      const cookie = String(fresh.headers['set-cookie']).split(';')[0] ?? '';
      const again = await at(`${path}?token=${token(url)}`, { cookie });
      expect(`${path} ${again.status} ${again.headers.location}`).toBe(`${path} 303 /`);
    }
  });

  it('answers /favicon.ico without a session, with no content', async () => {
    const icon = await raw(`${running.origin}/favicon.ico`);
    expect(icon.status).toBe(204);
    expect(icon.body).toBe('');
  });

  it('answers nothing but the page assets without a session', async () => {
    const api = await raw(`${running.origin}/api/approvals`);
    expect(api.status).toBe(401);
    expect(JSON.parse(api.body)).toMatchObject({ error: { code: 'unauthenticated' } });
    const page = await raw(`${running.origin}/`);
    expect(page.status).toBe(401);
    expect(page.body).not.toContain('<script');
  });

  it('refuses a non-loopback Host on a loopback listener (DNS rebinding)', async () => {
    const { cookie } = await login(running);
    const r = await raw(`${running.origin}/api/approvals`, {
      headers: { cookie, host: `attacker.example:${running.port}` },
    });
    expect(r.status).toBe(421);
    expect(JSON.parse(r.body)).toMatchObject({ error: { code: 'host_refused' } });
    const ok = await raw(`${running.origin}/api/approvals`, {
      headers: { cookie, host: `localhost:${running.port}` },
    });
    expect(ok.status).toBe(200);
  });

  it('checks Origin and the CSRF token on every state-changing request', async () => {
    const { cookie, csrf } = await login(running);
    const post = (headers: Record<string, string>) =>
      raw(`${running.origin}/api/approvals/nope/decision`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        body: '{"decision":"approved"}',
      });
    const noOrigin = await post({ [CSRF_HEADER]: csrf });
    expect(noOrigin.status).toBe(403);
    expect(JSON.parse(noOrigin.body)).toMatchObject({ error: { code: 'forbidden_origin' } });
    const otherOrigin = await post({ origin: 'http://evil.example', [CSRF_HEADER]: csrf });
    expect(otherOrigin.status).toBe(403);
    const noCsrf = await post({ origin: running.origin });
    expect(noCsrf.status).toBe(403);
    expect(JSON.parse(noCsrf.body)).toMatchObject({ error: { code: 'csrf_invalid' } });
    const wrongCsrf = await post({ origin: running.origin, [CSRF_HEADER]: `${csrf.slice(0, -1)}x` });
    expect(wrongCsrf.status).toBe(403);
    // Both right: the request reaches the route, which says the id is unknown.
    const ok = await post({ origin: running.origin, [CSRF_HEADER]: csrf });
    expect(ok.status).toBe(404);
    expect(JSON.parse(ok.body).error.message).toContain('no approval has the id nope');
  });

  it('sends a strict Content-Security-Policy on every response', async () => {
    const { cookie } = await login(running);
    for (const path of ['/', '/api/approvals', '/assets/app.js', '/api/nowhere']) {
      const r = await raw(`${running.origin}${path}`, { headers: { cookie } });
      expect(r.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe');
  });

  it('has no endpoint that edits grants: only exact pending approvals can be decided', async () => {
    const { cookie, csrf } = await login(running);
    for (const path of ['/api/grants', '/api/scope', '/api/workspace', '/api/agents/tester/grants']) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const r = await raw(`${running.origin}${path}`, {
          method,
          headers: {
            cookie,
            origin: running.origin,
            [CSRF_HEADER]: csrf,
            'content-type': 'application/json',
          },
          body: method === 'GET' || method === 'DELETE' ? undefined : '{"grants":["pack:notes"]}',
        });
        expect(`${method} ${path} ${r.status} ${r.body}`).toBe(`${method} ${path} 404 ${r.body}`);
      }
    }
  });
});

describe('console listener', () => {
  it('refuses to start on a non-loopback address without a token', async () => {
    const t = await makeInstance();
    try {
      await expect(startConsole({ instanceDir: t.instanceDir, listen: '0.0.0.0:0' })).rejects.toMatchObject({
        code: 'token_required',
        message: expect.stringContaining('--token-file'),
      });
      // Off loopback it needs TLS too: here a TLS proxy in front, named (docs/console.md, "Beyond
      // loopback"); this test's requests come from loopback, which is trusted as well.
      const withToken = await startConsole({
        instanceDir: t.instanceDir,
        listen: '0.0.0.0:0',
        token: 'x'.repeat(40),
        publicUrl: 'https://console.test',
        trustProxy: ['10.0.0.5'],
      });
      try {
        const proxied = { host: 'console.test', 'x-forwarded-proto': 'https' };
        // The operator's token logs in (more than once: it is theirs); a wrong one does not.
        const r = await raw(`http://127.0.0.1:${withToken.port}/?token=${'x'.repeat(40)}`, {
          headers: proxied,
        });
        expect(r.status).toBe(303);
        const r2 = await raw(`http://127.0.0.1:${withToken.port}/?token=${'x'.repeat(40)}`, {
          headers: proxied,
        });
        expect(r2.status).toBe(303);
        const bad = await raw(`http://127.0.0.1:${withToken.port}/?token=${'y'.repeat(40)}`, {
          headers: proxied,
        });
        expect(bad.status).toBe(401);
      } finally {
        await withToken.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
