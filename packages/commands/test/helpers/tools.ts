// Reading tool results as their types: each tool's input and outcome by its name, and the variant a
// test expects, narrowed (the test fails on any other) instead of read as untyped JSON.
import type { AdmittedEntry, AnsweredSummary, CallSummary, Entry } from '../../src/outcome';
import type { HarnessTool } from '../../src/tool';
import type { ListCommandsTool } from '../../src/tools/list-commands';
import type { LoomAuthoringContextTool } from '../../src/tools/loom-authoring-context';
import type { LoomComposeTool } from '../../src/tools/loom-compose';
import type { LoomInspectTool } from '../../src/tools/loom-inspect';
import type { RunCommandTool } from '../../src/tools/run-command';

/** Each tool's own type, by its name. */
export interface ToolsByName {
  list_commands: ListCommandsTool;
  run_command: RunCommandTool;
  run_read_command: RunCommandTool;
  loom_compose: LoomComposeTool;
  loom_inspect: LoomInspectTool;
  loom_authoring_context: LoomAuthoringContextTool;
}

/** What the tool named `N` takes, as a model writes it. */
export type InputOf<N extends keyof ToolsByName> = Parameters<ToolsByName[N]['execute']>[0];

/** What the tool named `N` answers. */
export type OutcomeOf<N extends keyof ToolsByName> = Awaited<ReturnType<ToolsByName[N]['execute']>>;

function hasStatus<T extends { status: string }, S extends T['status']>(
  result: T,
  status: S,
): result is Extract<T, { status: S }> {
  return result.status === status;
}

/** `result` as its variant of status `status`; the test fails on any other. */
export function withStatus<T extends { status: string }, S extends T['status']>(
  result: T,
  status: S,
): Extract<T, { status: S }> {
  if (!hasStatus(result, status))
    throw new Error(`expected status ${status}, found ${JSON.stringify(result).slice(0, 400)}`);
  return result;
}

/** An executed call's summary of an answer that was not withheld; the test fails on a withheld one. */
export function answered(summary: CallSummary): AnsweredSummary {
  if (summary.withheld === true) throw new Error('expected an answered summary, found a withheld one');
  return summary;
}

/** An executed call's admitted entry; the test fails on a withheld one. */
export function admitted(entry: Entry): AdmittedEntry {
  if (entry.status !== 'admitted') throw new Error(`expected an admitted entry, found ${entry.reasonCode}`);
  return entry;
}

/**
 * The tool named `name` among `tools`, as its own type: each name is made by one factory
 * (`createHostCommandTools`, `createLoomAuthoringTools`), and `checkedTools` checks every result
 * against that name's outcome. The test fails when no tool has the name.
 */
export function toolOf<N extends keyof ToolsByName>(tools: readonly HarnessTool[], name: N): ToolsByName[N] {
  const tool = tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool is named ${name}`);
  return tool as ToolsByName[N];
}
