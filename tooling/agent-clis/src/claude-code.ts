// The real Claude Code, run headless (`claude -p`) against a model server of our choosing, with a
// HOME of its own so a person's configuration is never read or written.
import { dirname } from 'node:path';
import { type Exec, execToEnd } from './exec';
import type { PinnedPackage } from './install';

/**
 * The Claude Code release the tests drive: the newest whose package declares Node 20 support
 * (`engines.node >=18`); 2.1.198 and later declare `>=22`. The package ships a native binary per
 * platform (an optional dependency its postinstall links into `bin/claude.exe`).
 */
export const CLAUDE_CODE: PinnedPackage = {
  name: '@anthropic-ai/claude-code',
  version: '2.1.197',
  bin: 'claude',
};

/** The name Claude Code gives a tool `tool` of the MCP server `server`: `mcp__<server>__<tool>`. */
export function claudeToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/**
 * The settings passed with `--settings`: start every server of the project's `.mcp.json` without
 * asking (a headless run cannot answer the approval dialog), and allow every tool of `server`.
 */
export function claudeSettings(server: string): string {
  return JSON.stringify({ enableAllProjectMcpServers: true, permissions: { allow: [`mcp__${server}`] } });
}

/**
 * The whole environment of a Claude Code run: nothing inherited but PATH (with this Node first, for
 * the `node` a `.mcp.json` entry names), a HOME of its own, the model server and a fake key, and
 * every background request, update and report turned off.
 */
export function claudeEnv(options: { home: string; baseUrl: string }): Record<string, string> {
  return {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    HOME: options.home,
    NO_COLOR: '1',
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-fake-model-key',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    // In a headless run Claude Code connects MCP servers in the background by default, so its first
    // model request can go out before a slow server's tools are listed; this makes it wait for them.
    MCP_CONNECTION_NONBLOCKING: 'false',
    // How long it waits for a server to start before going on without its tools (30 s by default):
    // on a machine at load 20 a cold `harness serve` can take longer than that.
    MCP_TIMEOUT: '180000',
  };
}

/**
 * Runs `claude -p <prompt> --output-format json` in `cwd` to completion, with the project's MCP
 * servers approved (`server`'s tools allowed) and no session written to disk.
 */
export function runClaude(options: {
  bin: string;
  cwd: string;
  env: Record<string, string>;
  prompt: string;
  server: string;
  timeoutMs?: number;
}): Promise<Exec> {
  const args = [
    '-p',
    options.prompt,
    '--output-format',
    'json',
    '--settings',
    claudeSettings(options.server),
    '--no-session-persistence',
  ];
  const { cwd, env } = options;
  return execToEnd(options.bin, args, { cwd, env, timeoutMs: options.timeoutMs ?? 120_000 });
}
