// Governed tools in the plan and at load: which server a run with `tools` is given, and how each
// adapter is handed it. (The end-to-end check, with a real `harness serve` and an MCP client, is in
// apps/cli/test/runner-tools.test.ts.)
import { buildEnvelope } from '@harness/events';
import { describe, expect, it } from 'vitest';
import { type Harness, type JobRequest, planSpawn } from '../src/index';
import { loadDoc } from './helpers';

const FILES = { 'ws.yaml': 'version: 1\n' };
const SOURCE = { id: 'gh', scheme: 'github', secret_env: 'GH_SECRET', trusted_actors: ['octocat'] };
const SERVE = { argv: ['/usr/bin/node', '/opt/harness/harness.js'], instanceDir: '/inst/runner/tools/h' };

function harness(h: Record<string, unknown>): Harness {
  const { result } = loadDoc({ sources: [SOURCE], harnesses: [{ id: 'h', ...h }] }, { files: FILES });
  if (!result.ok) throw new Error(result.issues.map((i) => i.message).join('\n'));
  return result.config.harnesses[0] as Harness;
}

function request(extra: Partial<JobRequest> = {}, serve = true): JobRequest {
  return {
    ...(serve ? { serve: SERVE } : {}),
    id: 'run-1',
    trigger: 'manual',
    startedAt: new Date('2026-12-01T10:00:00Z'),
    jobsDir: '/inst/runner/jobs',
    parentEnv: { PATH: '/usr/bin:/bin', HOME: '/home/op' },
    ...extra,
  };
}

const TOOLS = { tools: { workspace: 'ws.yaml', agent: 'reviewer', max_confidentiality: 'repo:public' } };

describe('a run with tools', () => {
  it('is given its own harness serve: the workspace, the agent, the run id as job, the ceiling', () => {
    const result = planSpawn(harness({ kind: 'claude-code', prompt: 'Review', ...TOOLS }), request());
    if (!result.ok) throw new Error(result.message);
    const tools = result.plan.tools;
    expect(tools?.command).toBe('/usr/bin/node');
    expect(tools?.args).toEqual([
      '/opt/harness/harness.js',
      'serve',
      '--workspace',
      expect.stringMatching(/\/ws\.yaml$/),
      '--agent',
      'reviewer',
      '--instance',
      '/inst/runner/tools/h',
      '--job-id',
      'run-1',
      '--prompt-slot',
      'direct-command',
      '--max-confidentiality',
      'repo:public',
    ]);
    expect(tools?.configFile).toBe('/inst/runner/jobs/h/run-1.mcp.json');
    expect(JSON.parse(tools?.configText ?? '')).toEqual({
      mcpServers: { harness: { type: 'stdio', command: '/usr/bin/node', args: tools?.args } },
    });
    expect(result.plan.args).toEqual([
      '-p',
      '--mcp-config',
      tools?.configFile,
      '--allowedTools',
      'mcp__harness',
      '--strict-mcp-config',
      'Review',
    ]);
    expect(result.plan.env.HARNESS_MCP_CONFIG).toBe(tools?.configFile);
  });

  it('gives the server the context slot when the task came from an event', () => {
    const loaded = buildEnvelope({
      source: 'webhook.gh',
      scheme: 'github',
      event: 'pull_request',
      delivery: 'd-1',
      body: { action: 'opened', number: 1, sender: { login: 'octocat' }, repository: { full_name: 'o/r' } },
      trustedActors: ['octocat'],
    });
    const result = planSpawn(
      harness({
        kind: 'codex',
        prompt: 'Fix',
        trigger: { source: 'gh', events: ['pull_request'] },
        ...TOOLS,
      }),
      request({ trigger: 'webhook', event: { ...loaded, file: '/inst/e.json' } }),
    );
    if (!result.ok) throw new Error(result.message);
    expect(result.plan.tools?.args).toEqual(expect.arrayContaining(['--prompt-slot', 'context']));
    // Codex gets the server as -c overrides (values are TOML; JSON strings and arrays are valid TOML).
    expect(result.plan.args.slice(0, 5)).toEqual([
      'exec',
      '-c',
      'mcp_servers.harness.command="/usr/bin/node"',
      '-c',
      `mcp_servers.harness.args=${JSON.stringify(result.plan.tools?.args)}`,
    ]);
    expect(result.plan.args.at(-1)).toBe('Fix');
  });

  it('fails, naming why, when the runner cannot start harness serve', () => {
    const result = planSpawn(
      harness({ kind: 'claude-code', prompt: 'Review', ...TOOLS }),
      request({}, false),
    );
    expect(result).toMatchObject({ ok: false, code: 'tools_unavailable' });
  });

  it('a run without tools gets no MCP flags and no HARNESS_MCP_CONFIG', () => {
    const result = planSpawn(harness({ kind: 'claude-code', prompt: 'Review' }), request());
    if (!result.ok) throw new Error(result.message);
    expect(result.plan.args).toEqual(['-p', 'Review']);
    expect(result.plan.tools).toBeUndefined();
    expect(result.plan.env.HARNESS_MCP_CONFIG).toBeUndefined();
  });
});

describe('tools at load', () => {
  it('refuses tools on pi, saying it has no MCP client', () => {
    const { result } = loadDoc(
      { harnesses: [{ id: 'h', kind: 'pi', prompt: 'x', ...TOOLS }] },
      { files: FILES },
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]?.message).toContain('pi and omp have no MCP client');
  });

  it('refuses a tools workspace that does not exist, with its line and column', () => {
    const { result } = loadDoc(
      {
        harnesses: [
          { id: 'h', kind: 'codex', prompt: 'x', tools: { workspace: 'missing.yaml', agent: 'a' } },
        ],
      },
      { files: FILES },
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues[0]).toMatchObject({ code: 'file_unreadable', line: expect.any(Number) });
    expect(result.issues[0]?.message).toContain('no workspace file at');
  });
});
