// A command's `examples`, checked at load: each `{ args, argv }` must render exactly that argv and each
// `{ args, refused }` must be refused for what it says, through the same rendering a call goes
// through (arguments, defaults, within_cwd paths, values, leading dashes). Nothing runs.
import { showPath } from '@harness/errors';
import { PacksErrorCode as Code, type PacksIssue, type PacksIssueDetails } from '../errors';
import { type RenderableCommand, renderCallArgv } from '../plan';
import type { CommandExample } from '../types';
import type { CheckContext, Path } from './types';

/** Whether a refusal's issues match what an example's `refused` says: a code, a reason, or words of a message. */
function matches(issues: readonly PacksIssue[], refused: string): boolean {
  return issues.some((i) => {
    const reason = (i.details as { reason?: unknown } | undefined)?.reason;
    return i.code === refused || reason === refused || i.message.includes(refused);
  });
}

function codesOf(issues: readonly PacksIssue[]): string {
  return issues
    .map((i) => {
      const reason = (i.details as { reason?: unknown } | undefined)?.reason;
      return typeof reason === 'string' ? `${i.code} (${reason})` : i.code;
    })
    .join(', ');
}

/**
 * Checks every example of one form of a command (its argv, or one variant's) against `command`;
 * pushes an `example_failed` issue at each example that does not hold. `variant` is the variant's
 * index when the form is one. A `within_cwd` path is checked as written (absolute, `..`), never
 * against the files of the project: an example says the same on every machine.
 */
export function checkExamples(
  command: RenderableCommand,
  examples: readonly { readonly example: CommandExample; readonly at: Path; readonly index: number }[],
  variant: number | undefined,
  ctx: CheckContext,
  issues: PacksIssue[],
): void {
  const id = command.manifestId;
  const where = variant === undefined ? id : `${id} (variant ${variant})`;
  for (const { example, at, index } of examples) {
    const fail = (
      reason: PacksIssueDetails['example_failed']['reason'],
      message: string,
      extra: { expected?: string; found?: string },
    ) =>
      issues.push(
        ctx.issue(Code.example_failed, at, `${showPath(at)}: example ${index} of ${where} ${message}`, {
          command: id,
          example: index,
          ...(variant === undefined ? {} : { variant }),
          reason,
          ...extra,
        }),
      );
    const rendered = renderCallArgv(command, example.args, null);
    const args = JSON.stringify(example.args);
    if ('argv' in example) {
      const expected = JSON.stringify(example.argv);
      if (!rendered.ok) {
        const found = codesOf(rendered.issues);
        fail(
          'refused',
          `does not hold: ${args} is refused (${rendered.issues[0]?.message ?? found}); expected the argv ${expected}`,
          { expected, found },
        );
        continue;
      }
      const found = JSON.stringify(rendered.argv);
      if (found !== expected) {
        fail('argv_differs', `does not hold: ${args} renders ${found}; the example says ${expected}`, {
          expected,
          found,
        });
      }
      continue;
    }
    if (rendered.ok) {
      const found = JSON.stringify(rendered.argv);
      fail(
        'not_refused',
        `does not hold: ${args} is not refused, it renders ${found}; the example says it is refused (${example.refused})`,
        {
          expected: example.refused,
          found,
        },
      );
    } else if (!matches(rendered.issues, example.refused)) {
      const found = codesOf(rendered.issues);
      fail(
        'refused_otherwise',
        `does not hold: ${args} is refused as ${found}, not for "${example.refused}"`,
        {
          expected: example.refused,
          found,
        },
      );
    }
  }
}
