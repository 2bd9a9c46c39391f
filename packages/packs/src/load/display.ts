// The checks of what a pack shows a person deciding an approval: each command's `display` names
// only its own inputs, and each `preview` names a read command of the same pack with arguments that
// command takes, mapped from inputs the held command has.
import { showPath } from '@harness/errors';
import { PREVIEW_FROM_CALL, parseDisplay } from '../display';
import { PacksErrorCode as Code, type PacksIssue } from '../errors';
import { listForMessage } from '../lookup';
import type { PackCommand } from '../types';
import type { CheckContext, Path } from './types';

type Built = Omit<PackCommand, 'sandbox'>;

/** Checks the `display` and `preview` of each command of one pack, pushing an issue for each fault. */
export function checkDisplays(
  commands: readonly Built[],
  pPath: Path,
  ctx: CheckContext,
  issues: PacksIssue[],
): void {
  const byId = new Map(commands.map((c) => [c.id, c]));
  commands.forEach((c, ci) => {
    const cPath: Path = [...pPath, 'commands', ci];
    const fail = (where: Path, expected: string, found: string, message: string) =>
      issues.push(ctx.issue(Code.schema, where, `${showPath(where)}: ${message}`, { expected, found }));
    const inputs = Object.keys(c.inputs);
    if (c.display !== undefined) {
      const where: Path = [...cPath, 'display'];
      const parsed = parseDisplay(c.display);
      if (!parsed.ok) fail(where, '{{name}} or {{name?}}', c.display, parsed.message);
      else {
        for (const p of parsed.parts) {
          if ('text' in p || inputs.includes(p.input)) continue;
          fail(
            where,
            `an input of ${c.manifestId}`,
            `{{${p.input}}}`,
            `display names {{${p.input}}}, which is no input of ${c.manifestId}; expected one of ${listForMessage(inputs)}`,
          );
        }
      }
    }
    if (c.preview !== undefined) checkPreview(c, byId, inputs, [...cPath, 'preview'], fail);
  });
}

/** The preview of `c`: a read command of the same pack, each argument one it takes, each `{{name}}` an input of `c`. */
function checkPreview(
  c: Built,
  byId: ReadonlyMap<string, Built>,
  inputs: readonly string[],
  where: Path,
  fail: (where: Path, expected: string, found: string, message: string) => void,
): void {
  const preview = c.preview!;
  const target = byId.get(preview.command);
  const reads = [...byId.values()].filter((b) => b.effects === 'read').map((b) => b.id);
  if (target === undefined || target.effects !== 'read') {
    fail(
      [...where, 'command'],
      `a read command of pack ${c.pack}`,
      preview.command,
      target === undefined
        ? `preview names "${preview.command}", which is no command of pack ${c.pack}; expected one of its read commands: ${listForMessage(reads)}`
        : `preview names "${preview.command}", a ${target.effects} command; a preview runs only a read command (effects: read) of pack ${c.pack}: ${listForMessage(reads)}`,
    );
    return;
  }
  const takes = Object.keys(target.inputs);
  for (const [name, value] of Object.entries(preview.args)) {
    const at: Path = [...where, 'args', name];
    if (!takes.includes(name)) {
      fail(
        at,
        `an input of ${target.manifestId}`,
        name,
        `names no input of ${target.manifestId}; expected one of ${listForMessage(takes)}`,
      );
      continue;
    }
    const from = typeof value === 'string' ? PREVIEW_FROM_CALL.exec(value) : null;
    if (from !== null && !inputs.includes(from[1]!)) {
      fail(
        at,
        `an input of ${c.manifestId}`,
        String(value),
        `takes {{${from[1]}}} from the call, which is no input of ${c.manifestId}; expected one of ${listForMessage(inputs)}`,
      );
    }
  }
}
