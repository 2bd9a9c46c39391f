// The agent CLI adapters: each one's one-shot argv contract, pinned in one place (seed 004, "pi and
// omp: one implementation, two registry entries"; TM-107…TM-120). A built-in adapter always takes the
// prompt in argv; `stdin` and `file` delivery are for `command` harnesses only (TM-101).
import type { AgentKind } from './schema';

/** One agent CLI: its executable and how a one-shot and a resident run are spelled. */
export interface Adapter {
  readonly kind: AgentKind;
  /** The executable, looked up on the run's PATH. */
  readonly exe: string;
  /** Whether the adapter passes `model` (`--model M`); load refuses `model` on one that does not. */
  readonly takesModel: boolean;
  /** argv (without the executable) of a one-shot run with this prompt. `--model` only when set (TM-110). */
  oneShot(prompt: string, model: string | undefined): string[];
  /** argv (without the executable) of a resident run: the operator's `args`, appended as written (TM-120). */
  resident(args: readonly string[]): string[];
}

function withModel(model: string | undefined): string[] {
  return model === undefined ? [] : ['--model', model];
}

/**
 * Claude Code, checked against `@anthropic-ai/claude-code` 2.1.197 (`claude --help`): `-p/--print`
 * runs one prompt and exits; `--model <model>`; the prompt is the positional argument.
 */
const claudeCode: Adapter = {
  kind: 'claude-code',
  exe: 'claude',
  takesModel: true,
  oneShot: (prompt, model) => ['-p', ...withModel(model), prompt],
  resident: (args) => [...args],
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
  oneShot: (prompt, model) => ['exec', ...withModel(model), prompt],
  resident: (args) => [...args],
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
