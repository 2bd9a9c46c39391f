// The types shared by the pack loader's modules: what a caller passes and gets back, and the context
// each check is given to position its issues.
import type { Locator } from '@harness/config/yaml';
import type { DetailsOf } from '@harness/errors';
import type { z } from 'zod';
import type { PacksErrorCode, PacksIssue, PacksIssueDetails } from '../errors';
import type { packSchema } from '../schema';
import type { CredentialSource, PackSet } from '../types';

/** Where a file comes from: a file to read, or text already read (with the file name to report). */
export type FileSource = { readonly file: string } | { readonly text: string; readonly file: string };

/** Options of a load: {@link loadPacks}, and `@harness/workspace`'s `loadWorkspace`. */
export interface LoadOptions {
  /** Probe `requires` (`<binary> --version`) at load. Default `true`; `false` trusts the file (tests, editors). */
  readonly probe?: boolean;
  /** PATH for probes. Default: this process's `PATH`. */
  readonly path?: string;
  /**
   * The credential source the host will run with. When given, every `credentials_ref` must be
   * present in it, or the load fails (CP-42: never an empty string at run time).
   */
  readonly credentials?: CredentialSource;
  /** Manifest ids the host serves itself (e.g. `loom.compose`): a pack command colliding with one is an error naming both. */
  readonly reservedCommandIds?: readonly string[];
  /** The serving user's home, what `~` means in sandbox paths. Default: this process's home directory. */
  readonly home?: string;
  /** PATH on which to look for bubblewrap. Default: this process's `PATH` (where runs look for it too). */
  readonly sandboxPath?: string;
  /**
   * More paths hidden from every confined command, beside the built-in ones (absolute): a host
   * passes its instance directories here.
   */
  readonly hide?: readonly string[];
  /**
   * The environment the built-in hidden paths are read from (`XDG_*`, `HARNESS_HOME`), and where a
   * workspace's `notify` targets' variables are looked for (an unset one is a warning). Default:
   * this process's.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The library `- standard: <name>` entries name: name → the pack's YAML text (a `command_packs`
   * entry). Default: the standard packs bundled with this release (docs/standard-packs.md).
   */
  readonly standardPacks?: Readonly<Record<string, string>>;
  /**
   * Give each standard git pack the person's git identity: `user.name` and `user.email` read once
   * per load from their global git configuration under `home` (`XDG_CONFIG_HOME` and
   * `GIT_CONFIG_GLOBAL` from `env`), never from a repository's, passed as the author and committer
   * variables. Unset, unreadable or refused: a `git_identity` warning. Default `false` (a host
   * serving the person's workspace sets it).
   */
  readonly gitIdentity?: boolean;
}

/** What {@link loadPacks} returns: the pack set and its warnings, or every issue found. */
export type PacksLoadResult =
  | { readonly ok: true; readonly packs: PackSet; readonly warnings: readonly PacksIssue[] }
  | { readonly ok: false; readonly issues: readonly PacksIssue[] };

/** A position in the parsed file, as keys and indexes from its root. */
export type Path = readonly (string | number)[];

/** One entry of `command_packs` as the schema parsed it. */
export type RawPack = z.input<typeof packSchema>;

/**
 * Builds the issue of `code` at `path` in the file, positioned at the value there (or at its key,
 * with `key`), with the code's details.
 */
export type PositionedIssue = <C extends PacksErrorCode>(
  code: C,
  path: Path,
  message: string,
  details: DetailsOf<PacksIssueDetails, C>,
  key?: boolean,
) => PacksIssue;

/** What every check needs: the file name, positions, and a constructor for a positioned issue. */
export interface CheckContext {
  readonly file: string;
  readonly loc: Locator;
  readonly issue: PositionedIssue;
}

/** What building a schema-valid file needs besides: the caller's options. */
export interface BuildContext extends CheckContext {
  readonly options: LoadOptions;
  /** Index in `command_packs` → the standard pack that entry was declared from. */
  readonly origins?: ReadonlyMap<number, string>;
  /** Leave an `enum_from_workspace` input open when no list is given (see `loadWith`). */
  readonly openListedValues?: boolean;
  /** Confine as declared, whatever this machine can do (see `loadWith`). */
  readonly asDeclared?: boolean;
  /** The file's `approval_wait` in ms (0: none), each pack's unless it sets its own. */
  readonly approvalWaitMs?: number;
  /** The file's `approval_timeout` in ms, each pack's unless it sets its own; absent: the default. */
  readonly approvalTimeoutMs?: number;
}
