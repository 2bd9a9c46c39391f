import type { SandboxPolicy } from '@harness/exec';
import type { PacksIssue } from './errors';
import type { ExitFailure } from './exit-failures';

/** The four permission tiers of a pack (the same four as SwarmKit's `mcp_servers`). */
export type Tier = 'open' | 'cautious' | 'strict' | 'readonly';

/** What a command does to the world, as its pack author declares it. Undeclared means `write`. */
export type Effects = 'read' | 'write';

/** How a command's stdout is returned: raw `text` (default), parsed `json`, or `lines`. */
export type OutputParse = 'text' | 'json' | 'lines';

/** A confidentiality/integrity label (`@harness/ifc`'s model), carried through as data. */
export interface Label {
  readonly confidentiality?: readonly unknown[];
  readonly integrity?: readonly unknown[];
}

/**
 * The JSON Schema of one input, restricted to what can become one argv element: `type` is
 * `string` (default), `integer`, `number` or `boolean`, optionally with `enum`, bounds, `pattern`,
 * `description` and `x-*` keywords.
 */
export interface InputSchema {
  readonly type: 'string' | 'integer' | 'number' | 'boolean';
  readonly description?: string;
  readonly title?: string;
  readonly enum?: readonly (string | number | boolean)[];
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  /** The value a call that leaves the input out gets (the input is then not required). */
  readonly default?: string | number | boolean;
  readonly [extension: `x-${string}`]: unknown;
}

/**
 * One `examples` entry of a command: arguments and the exact argv they render to, or arguments that
 * must be refused (`refused` is an issue code, a reason such as `flag_injection`, or words of the
 * message). The loader checks every example; none runs anything.
 */
export type CommandExample =
  | { readonly args: Readonly<Record<string, unknown>>; readonly argv: readonly string[] }
  | { readonly args: Readonly<Record<string, unknown>>; readonly refused: string };

/** A `requires` entry: a binary on PATH and an optional version constraint (`>=1.7`). */
export interface Requirement {
  readonly binary: string;
  readonly version?: string;
}

/**
 * A command's `preview`: the id of a read command of the same pack (`staged_diff`) and its
 * arguments, each a literal or `{{name}}` (the call's value of input `name`).
 */
export interface CommandPreview {
  readonly command: string;
  readonly args: Readonly<Record<string, string | number | boolean>>;
}

/** One command of a loaded pack, with every default resolved. */
export interface PackCommand {
  /** Command id inside its pack (`query`). */
  readonly id: string;
  /** Manifest id `<pack>.<command>` (`json-tools.query`). */
  readonly manifestId: string;
  /** Id of the pack that holds it. */
  readonly pack: string;
  /** One short line (declared `title`, else the first line of `description`, else the manifest id). */
  readonly title: string;
  /** Longer description (the model sees it); `''` when none was declared. */
  readonly description: string;
  /** The frozen argv template, as written (`{{filter}}` placeholders). */
  readonly argv: readonly string[];
  /**
   * The line a person reads for a call of it (`display` in the file): a template of the command's
   * inputs, rendered with the call's values escaped when an approval is asked. Absent: people see
   * the argv.
   */
  readonly display?: string;
  /**
   * A read command of the same pack run, confined, when a call of this one is held for approval,
   * whose bounded output the approval shows (`preview` in the file). Absent: none.
   */
  readonly preview?: CommandPreview;
  /** Inputs by name: the command's slots. */
  readonly inputs: Readonly<Record<string, InputSchema>>;
  /**
   * Inputs declared `allow_leading_dash: true`: their value may begin an argv element with `-` when
   * a literal `--` precedes it (refused otherwise, even after `--`).
   */
  readonly leadingDash: readonly string[];
  /**
   * Inputs declared `within_cwd: true`: paths refused when they are absolute, have a `..` segment, or
   * lead outside the pack's cwd through a symlink (checked when a call is rendered).
   */
  readonly withinCwd: readonly string[];
  /**
   * Per input, the literal text each value renders as (`values` in the file): a boolean or enum input
   * listed here never puts the caller's value in argv, only the pack's text for it.
   */
  readonly values: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** The command's examples (with those of the variant in use), as the file declares them. */
  readonly examples: readonly CommandExample[];
  /** Inputs a call must supply (those used as `{{name}}` with no `default`; `{{name?}}` makes one optional). */
  readonly required: readonly string[];
  /** Declared effects, `write` when undeclared. */
  readonly effects: Effects;
  /** Whether `effects` was written in the file (false: defaulted to `write`). */
  readonly effectsDeclared: boolean;
  /** How stdout is parsed. */
  readonly output: OutputParse;
  /** With `output: lines`, whether the lines are sorted (`output: { parse: lines, sort: true }`). */
  readonly sortLines: boolean;
  /** Exit codes that mean success (`ok_exit_codes`), `[0]` when undeclared. */
  readonly okExitCodes: readonly number[];
  /**
   * Exit codes that mean a named failure (`failure_exit_codes`), by code: the run is not ok and its
   * status is the name (`tests_failed`), not `exit_nonzero`. Empty when undeclared.
   */
  readonly failureExitCodes: Readonly<Record<number, ExitFailure>>;
  /**
   * Exit codes with which the command is known to have changed nothing (`unchanged_exit_codes`, `[]`
   * when undeclared): a write that fails with one is answered as not landed.
   */
  readonly unchangedExitCodes: readonly number[];
  /** Resolved tier: `permission_overrides[command]`, else the pack's `permission`, else `cautious`. */
  readonly tier: Tier;
  /** Resolved timeout in ms: `timeout_overrides[command]`, else the pack's `timeout`, else 30 s. */
  readonly timeoutMs: number;
  /** Resolved output ceiling in bytes (stdout + stderr): the pack's `max_output`, else 10 MiB. */
  readonly maxOutputBytes: number;
  /**
   * How long a call held for approval waits for a person's decision, in ms: the pack's
   * `approval_wait`, else the workspace's. Absent when neither sets a wait above 0 (the call answers
   * `approval_required` at once).
   */
  readonly approvalWaitMs?: number;
  /**
   * How long an approval request of this command stays open for a person, in ms: the pack's
   * `approval_timeout`, else the workspace's, else {@link DEFAULT_APPROVAL_TIMEOUT_MS}. A request
   * nobody decides by then expires, and the call is refused (deny by default).
   */
  readonly approvalTimeoutMs: number;
  /** The pack's `telemetry.include_args`: spans may carry this command's argument values. */
  readonly telemetryArgs?: true;
  /** Scopes a caller must hold: the pack's `scopes` plus the command's own. */
  readonly scopes: readonly string[];
  /**
   * Project files the command runs as code, relative to the pack's cwd: the pack's `plan_inputs`
   * plus the command's own. Their bytes are part of the plan an approval binds.
   */
  readonly planInputs: readonly string[];
  /** The command's label, else the pack's, else absent. */
  readonly label?: Label;
  /**
   * The confinement it runs under, every path resolved; `null`: unconfined (a write command with no
   * sandbox block, `sandbox: false`, `sandbox_mode: off`, or `preferred` where no mechanism works).
   */
  readonly sandbox: SandboxPolicy | null;
  /**
   * Listed in its pack's `unattended_when_confined` and, on this machine, a write under `cautious`
   * that runs confined (docs/packs.md, "Confined writes run unattended"): a call needs no person's approval. Absent
   * otherwise (a listed command that is not confined here asks, with a load warning saying why).
   */
  readonly unattended?: true;
}

/** One loaded, available pack. */
export interface Pack {
  readonly id: string;
  /** The bundled standard pack it was declared from (`- standard: files`), if any. */
  readonly standard?: string;
  readonly description: string;
  /** The pack's declared tier, `cautious` when undeclared. */
  readonly permission: Tier;
  /** Absolute working directory for its commands (the pack's `cwd` resolved against the workspace file's directory). */
  readonly cwd: string;
  /** `env` templates by variable name (may hold `{{credential.NAME}}`; never expanded otherwise). */
  readonly env: Readonly<Record<string, string>>;
  /**
   * Variables set from the person's own configuration at load, with their literal values (the
   * standard git pack's author and committer, from their global git configuration): set after `env`,
   * never parsed as templates, and part of every plan. Absent: none.
   */
  readonly personEnv?: Readonly<Record<string, string>>;
  /** Credential names this pack may use (`credentials_ref`). */
  readonly credentials: readonly string[];
  readonly requires: readonly Requirement[];
  readonly optional: boolean;
  readonly label?: Label;
  readonly commands: readonly PackCommand[];
  /**
   * Commands of the pack not offered: each takes an input's values from a list the workspace gives
   * (`enum_from_workspace`), and it gives none. Absent: none.
   */
  readonly unlisted?: readonly UnlistedCommand[];
}

/** A command left out of its pack because the workspace lists no values for one of its inputs. */
export interface UnlistedCommand {
  /** Its manifest id, `<pack>.<command>`. */
  readonly command: string;
  readonly input: string;
}

/** A declared pack left out of the workspace because it is `optional` and a requirement failed. */
export interface UnavailablePack {
  readonly id: string;
  /** The binary that is missing or has the wrong version. */
  readonly binary: string;
  /** Why, in one line (e.g. `jq is not installed (not found on PATH)`). */
  readonly reason: string;
  /** Manifest ids of the commands it would have offered. */
  readonly commands: readonly string[];
}

/**
 * The packs a file declares, as loaded on this machine: those offered, those left out, how their
 * commands are confined, and the load's warnings. Immutable, every default resolved, every template
 * checked. {@link loadPacks} produces one; a workspace (`@harness/workspace`) is one with its agents
 * and settings beside it. Every lookup, plan, render and run reads one.
 */
export interface PackSet {
  /** The file as given (for messages). */
  readonly file: string;
  /** Absolute directory of the file. */
  readonly dir: string;
  readonly packs: readonly Pack[];
  readonly unavailable: readonly UnavailablePack[];
  /** Non-fatal findings: packs left out, grants naming them, argv safety and credential flow. */
  readonly warnings: readonly PacksIssue[];
  /** The `sandbox_mode` the packs were loaded under and whether this machine can confine. */
  readonly sandbox: SandboxStatus;
}

/** How a pack set's commands are confined on this machine. */
export interface SandboxStatus {
  /** `sandbox_mode` as written, `preferred` when absent. */
  readonly mode: 'required' | 'preferred' | 'off';
  /** The mechanism found (`bwrap`, `seatbelt`), or `null` when none works or it was not looked for (`off`). */
  readonly mechanism: 'bwrap' | 'seatbelt' | null;
  /** Why confinement is not in force, and what to install; absent when it is (or mode is `off`). */
  readonly unavailable?: { readonly reason: string; readonly hint: string };
}

/** A source of credential values, configured by the host. Values never leave this package except into a child's env. */
export interface CredentialSource {
  /** The value of credential `name`, or `undefined` when the source does not have it. */
  get(name: string): string | undefined;
}
