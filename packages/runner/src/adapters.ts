// The agent CLI adapters: each one's one-shot argv contract, pinned in one place (seed 004, "pi and
// omp: one implementation, two registry entries"; TM-107…TM-120). A built-in adapter always takes the
// prompt in argv; `stdin` and `file` delivery are for `command` harnesses only (TM-101).
import type { AgentKind } from './schema';

/** The MCP server a run with `tools` gets: its own `harness serve`, and the config file naming it. */
export interface RunTools {
  readonly command: string;
  readonly args: readonly string[];
  /** A JSON file `{ "mcpServers": { "harness": { type, command, args } } }` written for the run (0600). */
  readonly configFile: string;
}

/** One agent CLI: its executable and how a one-shot and a resident run are spelled. */
export interface Adapter {
  readonly kind: AgentKind;
  /** The executable, looked up on the run's PATH. */
  readonly exe: string;
  /** Whether the adapter passes `model` (`--model M`); load refuses `model` on one that does not. */
  readonly takesModel: boolean;
  /**
   * argv (without the executable) of a one-shot run with this prompt. `--model` only when set
   * (TM-110); the MCP flags only when the harness has `tools` (load allows it where they exist).
   */
  oneShot(prompt: string, model: string | undefined, tools?: RunTools): string[];
  /** argv (without the executable) of a resident run: the operator's `args`, appended as written (TM-120). */
  resident(args: readonly string[], tools?: RunTools): string[];
}

function withModel(model: string | undefined): string[] {
  return model === undefined ? [] : ['--model', model];
}

/**
 * Claude Code's MCP flags (2.1.197 `claude --help`): `--mcp-config <configs...>` takes JSON files;
 * `--allowedTools mcp__harness` lets the run call the server's tools without a permission prompt
 * (in `-p` mode an unpermitted MCP call fails with "Claude requested permissions … you haven't
 * granted it yet"; the broker behind the server is what decides); `--strict-mcp-config` uses only
 * this server, ignoring every other MCP configuration. Both list options are variadic, so a flag
 * follows them before the prompt. Checked by running the real 2.1.197 binary against a scripted
 * model server (docs/runner.md, "Governed tools").
 */
function claudeTools(tools: RunTools | undefined): string[] {
  return tools === undefined
    ? []
    : ['--mcp-config', tools.configFile, '--allowedTools', 'mcp__harness', '--strict-mcp-config'];
}

/**
 * Codex's per-run MCP server (0.171.0 `codex exec --help`: `-c key=value`, the value parsed as TOML;
 * checked with `codex mcp get harness --json -c …`, which shows the server as given). A JSON string
 * and a JSON array of strings are valid TOML values.
 */
function codexTools(tools: RunTools | undefined): string[] {
  if (tools === undefined) return [];
  return [
    '-c',
    `mcp_servers.harness.command=${JSON.stringify(tools.command)}`,
    '-c',
    `mcp_servers.harness.args=${JSON.stringify(tools.args)}`,
  ];
}

/**
 * Claude Code, checked against `@anthropic-ai/claude-code` 2.1.197 (`claude --help`): `-p/--print`
 * runs one prompt and exits; `--model <model>`; the prompt is the positional argument.
 */
const claudeCode: Adapter = {
  kind: 'claude-code',
  exe: 'claude',
  takesModel: true,
  oneShot: (prompt, model, tools) => ['-p', ...withModel(model), ...claudeTools(tools), prompt],
  resident: (args, tools) => [...claudeTools(tools), ...args],
};

/**
 * Codex, checked against `@openai/codex` 0.171.0 (`codex exec --help`: `codex exec [OPTIONS]
 * [PROMPT]`, `-m, --model <MODEL>`). A prompt of `-` would make it read stdin; a rendered prompt
 * starting with `-` is refused before this is called (see plan.ts).
 */
const codex: Adapter = {
  kind: 'codex',
  exe: 'codex',
  takesModel: true,
  oneShot: (prompt, model, tools) => ['exec', ...codexTools(tools), ...withModel(model), prompt],
  resident: (args, tools) => [...codexTools(tools), ...args],
};

/**
 * Crush: `crush run <prompt>`. NOT checked against a binary: `@charmland/crush` downloads its binary
 * from the forge at install time, which this build machine cannot reach. The `run` flags published
 * in its documentation list no model option, so this adapter passes none and load refuses `model`.
 */
const crush: Adapter = {
  kind: 'crush',
  exe: 'crush',
  takesModel: false,
  oneShot: (prompt) => ['run', prompt],
  resident: (args) => [...args],
};

/**
 * The Pi family (TM-107): one implementation, registered as `pi` and `omp`. `--print` prints only
 * the final response (so `quiet` needs no flag, TM-116), Pi has no permission prompts (no
 * `auto_accept` flag, TM-114) and no turn limit (`max_turns` is inert, TM-115).
 *
 * pi: checked against `@mariozechner/pi-coding-agent` 0.73.1 (`pi --help`: `--print, -p`, `--model
 * <pattern>` taking `provider/id`, `PI_CODING_AGENT_DIR`, default `~/.pi/agent`).
 * omp: NOT checked against a binary: `@oh-my-pi/pi-coding-agent` 18.3.4 declares a Bun engine and
 * its dependency `@oh-my-pi/omp-stats@18.3.4` is not published, so it does not install. It is a Pi
 * fork; the flags below are Pi's. Use a `command` harness if they drift.
 */
function piFamily(kind: 'pi' | 'omp'): Adapter {
  return {
    kind,
    exe: kind,
    takesModel: true,
    oneShot: (prompt, model) => ['--print', ...withModel(model), prompt],
    resident: (args) => [...args],
  };
}

/** Every agent adapter by kind. */
export const ADAPTERS: Readonly<Record<AgentKind, Adapter>> = {
  'claude-code': claudeCode,
  codex,
  crush,
  pi: piFamily('pi'),
  omp: piFamily('omp'),
};

/**
 * The generic kind's one-shot command: nothing (TM-103). Generic is `sh -c <shell>` for resident
 * one-liners; it never borrows an agent's argv (the old delegation to Crush was the bug REQ-1 removes).
 */
export function genericOneShot(): undefined {
  return undefined;
}
