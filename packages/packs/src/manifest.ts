import type { Effects, InputSchema, Label, PackCommand, PackSet } from './types';

/** The JSON Schema of a command's arguments: an object over its inputs. */
export interface InputsSchema {
  readonly type: 'object';
  readonly properties: Readonly<Record<string, InputSchema>>;
  readonly required: readonly string[];
  readonly additionalProperties: false;
}

/**
 * One pack command as a manifest row (docs/protocol.md, "Manifest rows"): the host prints it as is
 * (adding its own stamps such as `readOnlyGranted`).
 */
export interface PackCommandRow {
  /** `<pack>.<command>`. */
  readonly id: string;
  readonly title: string;
  /** The description (the model sees it); the title when none was declared. */
  readonly help: string;
  readonly inputs: InputsSchema;
  readonly effect: Effects;
  /**
   * The timeout the runner enforces on this command, in ms: `timeout_overrides[command]`, else the
   * pack's `timeout`, else 30 s. A client waits at least this long for the call's answer.
   */
  readonly timeoutMs: number;
  /**
   * How long a call held for approval waits for a person's decision, in ms (`approval_wait`, cut to
   * the request's `approval_timeout`); absent when it does not wait. A client waits this long on top of `timeoutMs`.
   */
  readonly approvalWaitMs?: number;
  /** The command's label, else its pack's; absent when neither declares one. */
  readonly ifc?: Label;
  /** The pack lets telemetry export this command's argument values (`telemetry.include_args`). */
  readonly telemetryArgs?: true;
}

/** The arguments schema of a command. */
export function inputsSchema(command: PackCommand): InputsSchema {
  return {
    type: 'object',
    properties: command.inputs,
    required: command.required,
    additionalProperties: false,
  };
}

/**
 * The workspace's pack commands as manifest rows, in declaration order. With `commands` (e.g. an
 * agent's resolved grants), only those rows: a command an agent holds no grant for is not listed
 * (CP-65). Packs left out (optional, requirement unmet) contribute no rows.
 */
export function listCommands(
  workspace: PackSet,
  options: { readonly commands?: readonly string[] } = {},
): PackCommandRow[] {
  const rows: PackCommandRow[] = [];
  for (const pack of workspace.packs) {
    for (const command of pack.commands) {
      if (options.commands && !options.commands.includes(command.manifestId)) continue;
      rows.push({
        id: command.manifestId,
        title: command.title,
        help: command.description || command.title,
        inputs: inputsSchema(command),
        effect: command.effects,
        timeoutMs: command.timeoutMs,
        // A wait never outlives the request it waits on.
        ...(command.approvalWaitMs === undefined
          ? {}
          : { approvalWaitMs: Math.min(command.approvalWaitMs, command.approvalTimeoutMs) }),
        ...(command.label ? { ifc: command.label } : {}),
        ...(command.telemetryArgs ? { telemetryArgs: true as const } : {}),
      });
    }
  }
  return rows;
}
