import {
  CodedError,
  type CodeOf,
  type DetailsOf,
  defineCodes,
  formatIssue,
  type IssueOf,
  type IssuePath,
} from '@harness/errors';
import type { ExecErrorCode } from '@harness/exec';
import type { IssueCode as TemplateIssueCode, TmplErrorCode } from '@harness/tmpl';

/**
 * Codes of {@link PacksError} and of every issue this package reports. Callers branch on the code,
 * never on message text.
 */
export const PacksErrorCode = defineCodes({
  /** The workspace file could not be read. */
  file_unreadable: 'file_unreadable',
  /** The text is not valid YAML (or JSON). */
  yaml_syntax: 'yaml_syntax',
  /** A value does not have the shape the workspace schema expects. */
  schema: 'schema',
  /** Two packs, two commands of one pack, or two agents share an id; or a manifest id collides. */
  duplicate_id: 'duplicate_id',
  /** A pack id is reserved (`workspace`, `loom`). */
  reserved_id: 'reserved_id',
  /** A `permission_overrides` / `timeout_overrides` / `input_overrides` key or an `unattended_when_confined` entry names no command (or input) of its pack. */
  unknown_override: 'unknown_override',
  /** A `standard:` entry names no standard pack bundled with this release. */
  unknown_standard: 'unknown_standard',
  /** A command's example does not hold: its arguments render another argv, or are (not) refused. */
  example_failed: 'example_failed',
  /** An argv or env template does not parse, or uses a form its location does not allow. */
  template: 'template',
  /** `{{credential.NAME}}` appears in argv (credentials are legal in `env` only). */
  credential_in_argv: 'credential_in_argv',
  /** An argv placeholder names no declared input, or an input is used by no placeholder. */
  input_mismatch: 'input_mismatch',
  /** An env template names a credential the pack does not list in `credentials_ref`, or the credential source lacks it. */
  unknown_credential: 'unknown_credential',
  /** A required binary is not installed. */
  requirement_missing: 'requirement_missing',
  /** A required binary's version does not satisfy the constraint, or its version could not be read. */
  requirement_version: 'requirement_version',
  /** A grant names nothing that exists (`pack:nope`, `nope.cmd`, `pack:` with no id). */
  grant_unknown: 'grant_unknown',
  /** A bulk grant matches no command (e.g. `pack:<id>` whose commands are all writes). */
  grant_empty: 'grant_empty',
  /** A grant uses a reserved form that this project refuses. */
  grant_reserved: 'grant_reserved',
  /** An `mcp_servers` entry asks for what cannot hold (`trust_annotations` with `pin: false`: nothing pinned to trust). */
  server_unsupported: 'server_unsupported',
  /** A warning: an `mcp_servers` entry says `pin: false`, so its tools are served as listed, with no review. */
  server_unpinned: 'server_unpinned',
  /** A warning: a confined server's argv names a file its sandbox hides (under the home, or denied). */
  server_program_hidden: 'server_program_hidden',
  /** A command id is not in the workspace (or its pack was left out). */
  unknown_command: 'unknown_command',
  /** Call arguments do not match the command's inputs. */
  invalid_args: 'invalid_args',
  /** tmpl refused to render the argv (e.g. a value starting with `-` at the start of an element). */
  render_refused: 'render_refused',
  /** The credential source has no value for a credential the pack needs at run time. */
  credential_unavailable: 'credential_unavailable',
  /** The process could not be started (executable missing, cwd missing, …); nothing ran. */
  spawn_failed: 'spawn_failed',
  /**
   * A warning: argv safety that the loader cannot enforce (`allow_leading_dash` for a program that
   * does not honour `--` or hands the value on), or an element whose value the run would refuse for a
   * leading `-` while the input's schema lets the model send one.
   */
  argv_safety: 'argv_safety',
  /**
   * A warning: a command that receives a credential takes program text from its caller, or its
   * output is declared not to carry the credential's atom (`credential_output_unlabeled`).
   */
  credential_flow: 'credential_flow',
  /** An agent id is not declared in the workspace. */
  unknown_agent: 'unknown_agent',
  /** A sandbox path is malformed (`~user/…`), or a `write` path lies outside the `read` paths. */
  sandbox_path: 'sandbox_path',
  /** A sandbox setting this version cannot enforce (`network: { allow: [...] }`). */
  sandbox_unsupported: 'sandbox_unsupported',
  /** No confinement mechanism works here: a warning under `preferred`, a pack left out under `required`. */
  sandbox_unavailable: 'sandbox_unavailable',
  /** A warning: a `notify` target names an environment variable (its secret) that is not set here. */
  notify_env_unset: 'notify_env_unset',
  /**
   * A warning: the person's git identity (`user.name`, `user.email` of their global git
   * configuration) is not set, could not be read, or was refused, so a standard git pack's commits
   * get none of theirs.
   */
  git_identity: 'git_identity',
  /**
   * A warning: a command listed in `unattended_when_confined` does not run confined on this machine
   * (or is not a write under `cautious`), so it asks a person as before; `reason` says why.
   */
  not_confined: 'not_confined',
  /**
   * A warning: a command takes an input's values from a list the workspace gives
   * (`enum_from_workspace`), and the workspace gives none, so the command is not offered.
   */
  unlisted_input: 'unlisted_input',
});

/** One of the {@link PacksErrorCode} values. */
export type PacksErrorCode = CodeOf<typeof PacksErrorCode>;

/**
 * The `details` of each issue code, as data a caller can act on without reading the message. Where a
 * value names a pack, command, input, agent or credential it is the id or name as the file writes it
 * (`command` is a manifest id `<pack>.<command>`); no credential value and no string argument value
 * ever appears. `yaml_syntax` carries none: its `line` and `column` say it all.
 */
export interface PacksIssueDetails {
  /** The reason the read failed: the system's error code (`ENOENT`, `EACCES`). */
  readonly file_unreadable: { readonly reason: string };
  /** What the schema expected at `path`, and what the file has there (`nothing`, `a map`, `"text"`, `number 4`). */
  readonly schema: { readonly expected: string; readonly found: string };
  /**
   * The id declared twice, of what `kind`, and where it was declared first; `builtIn` when a pack
   * command's manifest id is one the host serves itself (then there is no `first`).
   */
  readonly duplicate_id: {
    readonly kind: 'pack' | 'command' | 'agent' | 'server';
    readonly id: string;
    readonly first?: { readonly line: number; readonly column: number };
    readonly builtIn?: true;
  };
  /** The reserved pack id, and every reserved id. */
  readonly reserved_id: { readonly pack: string; readonly reserved: readonly string[] };
  /** The override key that names no command, of which map, and the commands the pack has. */
  readonly unknown_override: {
    readonly pack: string;
    readonly key:
      | 'permission_overrides'
      | 'timeout_overrides'
      | 'input_overrides'
      | 'unattended_when_confined';
    readonly command: string;
    /** For `input_overrides`: the input named that the command does not have (`expected` then lists its inputs). */
    readonly input?: string;
    readonly expected: readonly string[];
  };
  /** The standard pack asked for, and the ones this release bundles. */
  readonly unknown_standard: { readonly standard: string; readonly expected: readonly string[] };
  /**
   * The command (manifest id), the example's index in its list (`variant`: the variant's index, for
   * an example of a variant), and why it does not hold: `argv_differs` (`expected` the example's argv,
   * `found` the rendered one, both as JSON), `refused` (the arguments are refused; `found` the issue
   * codes), `not_refused` (they render; `found` the argv as JSON), `refused_otherwise` (refused, but
   * not for what the example says; `expected` its `refused`, `found` the issue codes and reasons).
   */
  readonly example_failed: {
    readonly command: string;
    readonly example: number;
    readonly variant?: number;
    readonly reason: 'argv_differs' | 'refused' | 'not_refused' | 'refused_otherwise';
    readonly expected?: string;
    readonly found?: string;
  };
  /**
   * Why the template is refused: the template grammar's issue code (`unclosed_placeholder`, …),
   * `untrusted_in_argv` (`{{untrusted …}}` in argv), or `placeholder_in_executable` (argv[0] not
   * literal); `placeholder` is the path the placeholder names, where one was read.
   */
  readonly template: {
    readonly reason: TemplateIssueCode | 'untrusted_in_argv' | 'placeholder_in_executable';
    readonly placeholder?: string;
  };
  /** The credential placeholder found in argv (`credential.TOKEN`). */
  readonly credential_in_argv: { readonly placeholder: string };
  /**
   * The input concerned and why: `undeclared` (a placeholder names no declared input; `expected`
   * lists the declared ones), `dotted` (a placeholder path with dots), `unused` (a declared input no
   * placeholder uses), `reserved` (an input named `credential`).
   */
  readonly input_mismatch: {
    readonly input: string;
    readonly reason: 'undeclared' | 'dotted' | 'unused' | 'reserved';
    readonly expected: readonly string[];
  };
  /**
   * The credential name, the pack (absent when its id is not a string), and why: `undeclared` (an env
   * template names a credential `credentials_ref` does not list; `expected` lists those it does) or
   * `not_in_source` (the configured credential source has no value for it).
   */
  readonly unknown_credential: {
    readonly credential: string;
    readonly pack?: string;
    readonly reason: 'undeclared' | 'not_in_source';
    readonly expected: readonly string[];
  };
  /** The pack whose required binary is missing, that binary, and the grant that names the pack, if one does. */
  readonly requirement_missing: { readonly pack: string; readonly binary: string; readonly grant?: string };
  /**
   * The pack, the binary, the constraint required (`expected`, absent when the binary could not be
   * probed at all) and the version found (`found`, absent when none could be read).
   */
  readonly requirement_version: {
    readonly pack: string;
    readonly binary: string;
    readonly expected?: string;
    readonly found?: string;
  };
  /** The grant as written, and what it could have named instead (pack ids, or command ids). */
  readonly grant_unknown: { readonly grant: string; readonly expected: readonly string[] };
  /** The grant, its pack, and the pack's write commands (to grant one by one). */
  readonly grant_empty: { readonly grant: string; readonly pack: string; readonly writes: readonly string[] };
  /** The reserved grant as written. */
  readonly grant_reserved: { readonly grant: string };
  /** The server and the key it set that cannot hold with the rest of its entry. */
  readonly server_unsupported: { readonly server: string; readonly key: string };
  /** The server whose tools are not pinned. */
  readonly server_unpinned: { readonly server: string };
  /** The server, the path its argv names, and the directory to show it with. */
  readonly server_program_hidden: { readonly server: string; readonly path: string; readonly show: string };
  /**
   * The command id asked for, the ids it could have been (the pack's commands, or every command),
   * and the pack it belongs to when that pack was left out on this machine.
   */
  readonly unknown_command: {
    readonly command: string;
    readonly expected: readonly string[];
    readonly leftOut?: string;
  };
  /**
   * The command, the argument concerned (absent when the arguments are not an object), and why:
   * `not_an_object`, `unknown_input` (`expected` lists the inputs), `missing`, or `invalid_value`
   * (`expected` says what the input accepts; `found` the type given, or the number given for a
   * numeric input: never a string's value), or `path_outside_cwd` (a `within_cwd` input's path is
   * absolute, has a `..` segment or leads outside through a symlink; `found` says which).
   */
  readonly invalid_args: {
    readonly command: string;
    readonly input?: string;
    readonly reason: 'not_an_object' | 'unknown_input' | 'missing' | 'invalid_value' | 'path_outside_cwd';
    readonly expected: string;
    readonly found?: string;
  };
  /** The command, the template renderer's code (`flag_injection`, `nul_byte`, …), and the input concerned where known. */
  readonly render_refused: {
    readonly command: string;
    readonly reason: TmplErrorCode;
    readonly input?: string;
  };
  /** The command and the names of the credentials that had no value. */
  readonly credential_unavailable: { readonly command: string; readonly credentials: readonly string[] };
  /** The command, the executable it names (argv[0]), and the process runner's code (`executable_not_found`, `cwd_not_found`, …). */
  readonly spawn_failed: {
    readonly command: string;
    readonly executable: string;
    readonly reason: ExecErrorCode;
  };
  /** The command (manifest id) and the input whose leading dash the warning is about. */
  readonly argv_safety: { readonly command: string; readonly input: string };
  /**
   * The command, the credentials it receives, and the input that reaches the program as code (absent
   * for the `credential_output_unlabeled` opt-out warning).
   */
  readonly credential_flow: {
    readonly command: string;
    readonly credentials: readonly string[];
    readonly input?: string;
  };
  /** The agent id asked for, and the agents the workspace declares. */
  readonly unknown_agent: { readonly agent: string; readonly expected: readonly string[] };
  /**
   * The command, the sandbox path concerned (as written for `other_home`, resolved otherwise), and
   * why: `other_home` (`~user/…`), `write_outside_read` (a write path outside the read paths), or
   * `cwd_outside_read` (the working directory outside them).
   */
  readonly sandbox_path: {
    readonly command: string;
    readonly entry: string;
    readonly reason: 'other_home' | 'write_outside_read' | 'cwd_outside_read' | 'home_outside_home';
  };
  /** The command and the sandbox setting this version cannot enforce. */
  readonly sandbox_unsupported: { readonly command: string; readonly setting: 'network' };
  /** The `sandbox_mode` in force, the packs concerned (run unconfined, or left out), and how to get a mechanism. */
  readonly sandbox_unavailable: {
    readonly mode: 'preferred' | 'required';
    readonly packs: readonly string[];
    readonly hint: string;
  };
  /** The notify target's name and the environment variable it names that is not set. */
  readonly notify_env_unset: { readonly target: string; readonly env: string };
  /** The git pack concerned and why it has no identity of the person's. */
  readonly git_identity: { readonly pack: string; readonly reason: 'unset' | 'invalid' | 'unreadable' };
  /** The command (manifest id) and why it still asks: {@link ConfinementGap}'s code. */
  readonly not_confined: { readonly command: string; readonly reason: string };
  /** The command not offered, the input whose list is missing, and the override that gives one. */
  readonly unlisted_input: { readonly command: string; readonly input: string; readonly expected: string };
}

/**
 * One problem found while loading a workspace, resolving grants or preparing a run. `file`, `line`
 * and `column` (1-based) are present for problems found in a workspace file; `path` is the location
 * inside the document (`['command_packs', 0, 'commands', 1, 'argv', 2]`); `details` holds the
 * code's data ({@link PacksIssueDetails}), so `if (issue.code === 'grant_unknown') issue.details.grant`
 * is typed.
 */
export type PacksIssue = IssueOf<PacksErrorCode, PacksIssueDetails>;

/** Where in a file an issue sits (all absent for an issue about a call rather than a file). */
export interface IssuePlace {
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
}

/** Builds the issue of `code` with its details; the one place an issue object is put together. */
export function packsIssue<C extends PacksErrorCode>(
  code: C,
  message: string,
  path: IssuePath,
  details: DetailsOf<PacksIssueDetails, C>,
  place: IssuePlace = {},
): PacksIssue {
  return {
    code,
    message,
    path,
    ...place,
    ...(details === undefined ? {} : { details }),
  } as PacksIssue;
}

/**
 * The one error class of `@harness/packs`. Expected failures are returned as data
 * (`{ ok: false, issues }`); this is thrown only for misuse (e.g. a workspace object that this
 * package did not produce) and by {@link PacksError.fromIssues} for callers that prefer throwing.
 */
export class PacksError extends CodedError<PacksErrorCode> {
  override readonly name = 'PacksError';
  /** The issues behind this error (empty unless made by {@link PacksError.fromIssues}). */
  readonly issues: readonly PacksIssue[];
  constructor(
    code: PacksErrorCode,
    message: string,
    options: { readonly cause?: unknown; readonly issues?: readonly PacksIssue[] } = {},
  ) {
    super(code, message, options.cause === undefined ? {} : { cause: options.cause });
    this.issues = options.issues ?? [];
  }

  /** An error carrying `issues`, its message their formatted lines, its code the first issue's. */
  static fromIssues(issues: readonly PacksIssue[]): PacksError {
    const first = issues[0];
    return new PacksError(first?.code ?? PacksErrorCode.schema, issues.map(formatIssue).join('\n'), {
      issues,
    });
  }
}

/** `file:line:column: message` (or just the message when the issue has no position). */
export { formatIssue };
