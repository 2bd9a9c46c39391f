/**
 * Codes of {@link PacksError} and of every issue this package reports. Callers branch on the code,
 * never on message text.
 */
export const PacksErrorCode = {
  /** The workspace file could not be read. */
  FILE_UNREADABLE: 'FILE_UNREADABLE',
  /** The text is not valid YAML (or JSON). */
  YAML_SYNTAX: 'YAML_SYNTAX',
  /** A value does not have the shape the workspace schema expects. */
  SCHEMA: 'SCHEMA',
  /** Two packs, two commands of one pack, or two agents share an id; or a manifest id collides. */
  DUPLICATE_ID: 'DUPLICATE_ID',
  /** A pack id is reserved (`workspace`, `loom`). */
  RESERVED_ID: 'RESERVED_ID',
  /** A `permission_overrides` / `timeout_overrides` key names no command of its pack. */
  UNKNOWN_OVERRIDE: 'UNKNOWN_OVERRIDE',
  /** An argv or env template does not parse, or uses a form its location does not allow. */
  TEMPLATE: 'TEMPLATE',
  /** `{{credential.NAME}}` appears in argv (credentials are legal in `env` only). */
  CREDENTIAL_IN_ARGV: 'CREDENTIAL_IN_ARGV',
  /** An argv placeholder names no declared input, or an input is used by no placeholder. */
  INPUT_MISMATCH: 'INPUT_MISMATCH',
  /** An env template names a credential the pack does not list in `credentials_ref`, or the credential source lacks it. */
  UNKNOWN_CREDENTIAL: 'UNKNOWN_CREDENTIAL',
  /** A required binary is not installed. */
  REQUIREMENT_MISSING: 'REQUIREMENT_MISSING',
  /** A required binary's version does not satisfy the constraint, or its version could not be read. */
  REQUIREMENT_VERSION: 'REQUIREMENT_VERSION',
  /** A grant names nothing that exists (`pack:nope`, `nope.cmd`, `pack:` with no id). */
  GRANT_UNKNOWN: 'GRANT_UNKNOWN',
  /** A bulk grant matches no command (e.g. `pack:<id>` whose commands are all writes). */
  GRANT_EMPTY: 'GRANT_EMPTY',
  /** A grant uses a reserved form (`server:<id>`) that this project refuses. */
  GRANT_RESERVED: 'GRANT_RESERVED',
  /** A command id is not in the workspace (or its pack was left out). */
  UNKNOWN_COMMAND: 'UNKNOWN_COMMAND',
  /** Call arguments do not match the command's inputs. */
  INVALID_ARGS: 'INVALID_ARGS',
  /** tmpl refused to render the argv (e.g. a value starting with `-` at the start of an element). */
  RENDER_REFUSED: 'RENDER_REFUSED',
  /** The credential source has no value for a credential the pack needs at run time. */
  CREDENTIAL_UNAVAILABLE: 'CREDENTIAL_UNAVAILABLE',
  /** The process could not be started (executable missing, cwd missing, …); nothing ran. */
  SPAWN_FAILED: 'SPAWN_FAILED',
  /**
   * A warning: argv safety that the loader cannot enforce (`allow_leading_dash` for a program that
   * does not honour `--` or hands the value on), or an element whose value the run would refuse for a
   * leading `-` while the input's schema lets the model send one.
   */
  ARGV_SAFETY: 'ARGV_SAFETY',
  /**
   * A warning: a command that receives a credential takes program text from its caller, or its
   * output is declared not to carry the credential's atom (`credential_output_unlabeled`).
   */
  CREDENTIAL_FLOW: 'CREDENTIAL_FLOW',
  /** An agent id is not declared in the workspace. */
  UNKNOWN_AGENT: 'UNKNOWN_AGENT',
  /** A sandbox path is malformed (`~user/…`), or a `write` path lies outside the `read` paths. */
  SANDBOX_PATH: 'SANDBOX_PATH',
  /** A sandbox setting this version cannot enforce (`network: { allow: [...] }`). */
  SANDBOX_UNSUPPORTED: 'SANDBOX_UNSUPPORTED',
  /** No confinement mechanism works here: a warning under `preferred`, a pack left out under `required`. */
  SANDBOX_UNAVAILABLE: 'SANDBOX_UNAVAILABLE',
} as const;

/** One of the {@link PacksErrorCode} values. */
export type PacksErrorCode = (typeof PacksErrorCode)[keyof typeof PacksErrorCode];

/**
 * One problem found while loading a workspace, resolving grants or preparing a run. `file`, `line`
 * and `column` (1-based) are present for problems found in a workspace file; `path` is the location
 * inside the document (`['command_packs', 0, 'commands', 1, 'argv', 2]`).
 */
export interface PacksIssue {
  readonly code: PacksErrorCode;
  /** One line: what failed, what was expected, what was found, how to fix it. Never holds a secret. */
  readonly message: string;
  readonly path: readonly (string | number)[];
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
}

/**
 * The one error class of `@harness/packs`. Expected failures are returned as data
 * (`{ ok: false, issues }`); this is thrown only for misuse (e.g. a workspace object that this
 * package did not produce) and by {@link PacksError.fromIssues} for callers that prefer throwing.
 */
export class PacksError extends Error {
  override readonly name = 'PacksError';
  readonly code: PacksErrorCode;
  readonly issues: readonly PacksIssue[];
  constructor(
    code: PacksErrorCode,
    message: string,
    options?: { cause?: unknown; issues?: readonly PacksIssue[] },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.issues = options?.issues ?? [];
  }

  /** An error carrying `issues`, its message their formatted lines, its code the first issue's. */
  static fromIssues(issues: readonly PacksIssue[]): PacksError {
    const first = issues[0];
    return new PacksError(first?.code ?? PacksErrorCode.SCHEMA, issues.map(formatIssue).join('\n'), {
      issues,
    });
  }
}

/** `file:line:column: message` (or just the message when the issue has no position). */
export function formatIssue(issue: PacksIssue): string {
  if (issue.file === undefined) return issue.message;
  if (issue.line === undefined) return `${issue.file}: ${issue.message}`;
  return `${issue.file}:${issue.line}:${issue.column ?? 1}: ${issue.message}`;
}
