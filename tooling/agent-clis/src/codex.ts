// The real Codex CLI, run headless (`codex exec`) against a model server of our choosing, with a HOME
// of its own so a person's configuration is never read or written. Codex reads its MCP servers from
// `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`), where `harness init --client codex`
// writes `[mcp_servers.harness]`; the model provider and every other setting of a run are passed as
// `-c key=value` overrides (the value is TOML), so the file stays exactly as init wrote it.
import { dirname } from 'node:path';
import { type Exec, execToEnd } from './exec';
import type { PinnedPackage } from './install';

/**
 * The Codex CLI release the tests drive: the newest on the registry on the day it was checked
 * (0.171.0). The npm package is a small launcher; the native binary comes as an optional dependency
 * per platform (`@openai/codex-linux-x64` is `@openai/codex@0.171.0-linux-x64`).
 */
export const CODEX: PinnedPackage = { name: '@openai/codex', version: '0.171.0', bin: 'codex' };

/** The name of the model provider the overrides declare. */
const PROVIDER = 'fake';
/** The model id Codex sends; Codex knows no metadata for it and says so on stderr. */
export const CODEX_MODEL = 'fake-model';

/**
 * The name Codex's model reads for tool `tool` of MCP server `server`: Codex offers a server's tools
 * in the Responses API namespace `mcp__<server>`, so the qualified name is `mcp__<server>__<tool>`.
 */
export function codexToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/** A TOML value: a JSON string or array of strings is one (TOML's basic strings escape as JSON does). */
function toml(value: string | boolean | readonly string[]): string {
  return typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** The `-c` overrides that point Codex at the model server `baseUrl` (ending in /v1), over HTTP. */
export function providerOverrides(baseUrl: string): string[] {
  const provider = [
    `name=${toml('fake model')}`,
    `base_url=${toml(baseUrl)}`,
    // The Responses API is the one wire API this release speaks to a custom provider.
    `wire_api=${toml('responses')}`,
    // Streamed over HTTP (server-sent events), never a WebSocket; a failure is not retried.
    'supports_websockets=false',
    'request_max_retries=0',
    'stream_max_retries=0',
  ].join(',');
  return [
    `model_provider=${toml(PROVIDER)}`,
    `model_providers.${PROVIDER}={${provider}}`,
    `check_for_update_on_startup=false`,
    `analytics.enabled=false`,
    `web_search=${toml('disabled')}`,
  ];
}

/**
 * The override that lets every tool of `server` run without Codex asking first. A headless run has
 * nobody to ask: with approval policy `never` (what `codex exec` runs with) Codex refuses a call to
 * a tool that has no `readOnlyHint` ("MCP tool call requires approval, but approval policy is never").
 */
export function approveServerTools(server: string): string {
  return `mcp_servers.${server}.default_tools_approval_mode=${toml('approve')}`;
}

/**
 * The override that waits up to 3 minutes for `server` to start (Codex gives a server 10 s by
 * default, and then goes on without its tools): a cold `harness serve` on a machine at load 10–30
 * can take longer than that.
 */
export function serverStartTimeout(server: string): string {
  return `mcp_servers.${server}.startup_timeout_sec=180`;
}

/** The override that replaces the arguments of `server`'s entry. */
export function serverArgs(server: string, args: readonly string[]): string {
  return `mcp_servers.${server}.args=${toml(args)}`;
}

/**
 * The whole environment of a Codex run: nothing inherited but PATH (with this Node first, for the
 * `node` the entry `harness init` wrote names), a HOME of its own, and no colour.
 */
export function codexEnv(home: string): Record<string, string> {
  return { PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, HOME: home, NO_COLOR: '1' };
}

/** Runs the codex binary with `args` in `cwd` to completion, stdin closed (`codex exec` appends piped stdin to the prompt). */
export function runCodexCommand(options: {
  bin: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs?: number;
}): Promise<Exec> {
  const { cwd, env } = options;
  return execToEnd(options.bin, options.args, { cwd, env, timeoutMs: options.timeoutMs ?? 120_000 });
}

/**
 * `codex exec <prompt>`: one headless turn, with `overrides` as `-c` pairs and `flags` before the
 * prompt, every configuration key checked, no session file written. Its stdout is the model's final
 * message.
 */
export function codexExec(options: {
  bin: string;
  cwd: string;
  env: Record<string, string>;
  prompt: string;
  overrides: readonly string[];
  flags?: readonly string[];
}): Promise<Exec> {
  const args = [
    'exec',
    // A key this release does not know (a typo in an override, or in what init wrote) stops the run.
    '--strict-config',
    '--ephemeral',
    '--color',
    'never',
    '-m',
    CODEX_MODEL,
    ...options.overrides.flatMap((o) => ['-c', o]),
    ...(options.flags ?? []),
    options.prompt,
  ];
  return runCodexCommand({ bin: options.bin, args, cwd: options.cwd, env: options.env });
}

/** An MCP server entry as `codex mcp get <name> --json` reports it (the fields read here). */
export interface CodexServerEntry {
  name: string;
  enabled: boolean;
  transport: { type: string; command: string; args: string[] };
}

/** Codex's own reading of the MCP server entry `server`, or why there is none. */
export async function codexServerEntry(options: {
  bin: string;
  cwd: string;
  env: Record<string, string>;
  server: string;
}): Promise<{ ok: true; entry: CodexServerEntry } | { ok: false; reason: string }> {
  const args = ['mcp', 'get', options.server, '--json'];
  const run = await runCodexCommand({ bin: options.bin, args, cwd: options.cwd, env: options.env });
  if (run.code !== 0) return { ok: false, reason: `codex mcp get exited ${run.code}: ${run.stderr.trim()}` };
  return { ok: true, entry: JSON.parse(run.stdout) as CodexServerEntry };
}
