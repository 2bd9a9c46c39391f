// The MCP conformance suite (@modelcontextprotocol/conformance, pinned, installed from npm into the
// cache like the real MCP servers, never a dependency) runs its server scenarios against
// `harness serve --http`. Every scenario for what serve offers passes; the ones that fail are
// exactly the list docs/testing.md gives with why ("Conformance"), so a change either way is seen.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { CONFORMANCE, installServer, needs, repoRoot, tempDir } from '@harness/test-utils';
import { afterAll, beforeAll, expect } from 'vitest';
import { appDir, sandbox, startHttp } from './helpers';

const installed = await installServer(CONFORMANCE);
const suite = needs({
  what: `${CONFORMANCE.name}@${CONFORMANCE.version} installed from the npm registry`,
  present: installed.ok,
  install: 'npm must reach the registry (the test installs it into ~/.cache/harness-mcp-servers)',
});

/** The scenarios docs/testing.md lists as not offered, between its two markers. */
function documentedUnsupported(): string[] {
  const text = readFileSync(join(repoRoot, 'docs', 'testing.md'), 'utf8');
  const start = text.indexOf('<!-- conformance-unsupported:start -->');
  const end = text.indexOf('<!-- conformance-unsupported:end -->');
  if (start < 0 || end < start) throw new Error('docs/testing.md has no conformance-unsupported list');
  return [...text.slice(start, end).matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1] as string).sort();
}

/**
 * A proxy that adds serve's bearer token to every request (the suite sends no headers of its own)
 * and passes everything else through as it is, Host and Origin included (its DNS-rebinding scenario
 * sends a foreign Host), streaming both ways.
 */
function bearerProxy(target: URL, token: string): Promise<Server> {
  const proxy = createServer((req, res) => {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => res.destroy(error));
    req.pipe(upstream);
  });
  return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy)));
}

interface Scenario {
  name: string;
  passed: number;
  failed: number;
}

/** Each scenario's checks from the suite's output folder (`server-<scenario>-<timestamp>/checks.json`). */
function readScenarios(dir: string): Scenario[] {
  return readdirSync(dir)
    .map((entry) => {
      const name = entry.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
      const checks = JSON.parse(readFileSync(join(dir, entry, 'checks.json'), 'utf8')) as {
        status: string;
      }[];
      return {
        name,
        passed: checks.filter((c) => c.status === 'SUCCESS').length,
        failed: checks.filter((c) => c.status === 'FAILURE').length,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

suite.describe('the MCP conformance suite against harness serve --http', () => {
  const box = sandbox();
  const results = tempDir('harness-conformance-');
  const token = 'conformance-token-0123456789';
  let serve: Awaited<ReturnType<typeof startHttp>>;
  let proxy: Server | undefined;
  let scenarios: Scenario[] = [];
  let output = '';

  beforeAll(async () => {
    // The suite opens a session per scenario and never ends one: room for all of them.
    serve = await startHttp(
      ['--http', '127.0.0.1:0', '--instance', box.instance, '--max-sessions', '512'],
      box.home,
      { HARNESS_HTTP_TOKEN: token },
    );
    proxy = await bearerProxy(serve.url, token);
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
    const entry = installed.ok ? installed.entry : '';
    output = await new Promise<string>((resolve) => {
      execFile(
        process.execPath,
        [
          '--import',
          join(appDir, 'test', 'fixtures', 'conformance', 'register.mjs'),
          entry,
          'server',
          '--url',
          url,
          '-o',
          results.path,
        ],
        { timeout: 240_000, maxBuffer: 32 << 20, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' } },
        (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
      );
    });
    scenarios = readScenarios(results.path);
    const checks = scenarios.reduce((n, s) => n + s.passed + s.failed, 0);
    const passed = scenarios.reduce((n, s) => n + s.passed, 0);
    process.stderr.write(
      `conformance ${CONFORMANCE.version}: ${passed}/${checks} checks passed, ${scenarios.filter((s) => s.failed === 0).length}/${scenarios.length} scenarios\n`,
    );
  }, 300_000);

  afterAll(async () => {
    await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
    await serve?.stop();
    box.cleanup();
    results.cleanup();
  });

  suite.it('ran every scenario of the active suite', () => {
    expect(scenarios.length, output.slice(-2000)).toBeGreaterThanOrEqual(30);
    expect(scenarios.map((s) => s.name)).toEqual(
      expect.arrayContaining(['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']),
    );
  });

  suite.it('fails exactly the scenarios docs/testing.md lists as not offered', () => {
    const failing = scenarios.filter((s) => s.failed > 0).map((s) => s.name);
    expect(failing.sort()).toEqual(documentedUnsupported());
  });

  suite.it('passes every scenario for what serve offers, each with at least one check', () => {
    const unsupported = new Set(documentedUnsupported());
    for (const s of scenarios.filter((x) => !unsupported.has(x.name))) {
      expect({ name: s.name, failed: s.failed }).toEqual({ name: s.name, failed: 0 });
      expect(s.passed, s.name).toBeGreaterThan(0);
    }
  });
});
