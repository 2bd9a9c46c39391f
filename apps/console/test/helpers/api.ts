// A logged-in client of a running console's API over real HTTP: the session cookie, and the CSRF
// token and Origin every state-changing request needs.
import { request } from 'node:http';
import type { RunningConsole } from '../../src/index';

export interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

function send(
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method, headers: options.headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface ApiClient {
  get(path: string): Promise<ApiAnswer>;
  post(path: string, body: unknown): Promise<ApiAnswer>;
}

/** Logs in through a one-time URL and returns a client of `/api`. */
export async function apiClient(running: RunningConsole): Promise<ApiClient> {
  const login = await send(running.loginUrl(), { method: 'GET', headers: {} });
  const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
  const parse = (r: { status: number; text: string }): ApiAnswer => ({
    status: r.status,
    body: r.text === '' ? {} : (JSON.parse(r.text) as Record<string, unknown>),
  });
  const session = parse(await send(`${running.origin}/api/session`, { method: 'GET', headers: { cookie } }));
  const csrf = String(session.body.csrf);
  const csrfHeader = String(session.body.csrfHeader ?? 'x-csrf-token');
  return {
    get: async (path) =>
      parse(await send(`${running.origin}/api${path}`, { method: 'GET', headers: { cookie } })),
    post: async (path, body) =>
      parse(
        await send(`${running.origin}/api${path}`, {
          method: 'POST',
          headers: {
            cookie,
            origin: running.origin,
            [csrfHeader]: csrf,
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
        }),
      ),
  };
}
