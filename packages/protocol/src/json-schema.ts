// The JSON Schema of the broker protocol (loom-broker/2), generated from the zod schemas of wire.ts:
// for peers in other languages and for editors. The broker parses every request line with the same
// zod schema the request JSON Schema is generated from (parse.ts).
import { z } from 'zod';
import { commandAnswer } from './answer';
import { brokerAnswer, brokerRequest, manifestRow, progressLine } from './wire';

/** A generated JSON Schema (draft 2020-12). */
export type JsonSchema = Readonly<Record<string, unknown>>;

const BASE = 'https://harness.dev/schemas/loom-broker-2';

// Input mode: an object schema leaves `additionalProperties` open, since every peer ignores fields it
// does not know (docs/protocol.md, "Versions"). The arguments object is a zod custom check, whose
// JSON Schema (`type: object`) is its metadata.
function generate(schema: z.ZodType, file: string, title?: string): JsonSchema {
  const { $schema, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return { $schema, $id: `${BASE}/${file}`, ...(title === undefined ? {} : { title }), ...rest };
}

/** JSON Schema of one broker request line. */
export const brokerRequestSchema: JsonSchema = generate(
  brokerRequest,
  'request.json',
  'loom-broker/2 request',
);

/** JSON Schema of a `CommandAnswer` (the `result` of a `run`, and the stdout of `loom command run`). */
export const commandAnswerSchema: JsonSchema = generate(commandAnswer, 'command-answer.json');

/** JSON Schema of a manifest row. */
export const manifestRowSchema: JsonSchema = generate(manifestRow, 'manifest-row.json');

/** JSON Schema of one broker answer line. */
export const brokerAnswerSchema: JsonSchema = generate(brokerAnswer, 'answer.json', 'loom-broker/2 answer');

/** JSON Schema of one progress line: sent only for a `run` that asked for `progress`, before its answer. */
export const brokerProgressSchema: JsonSchema = generate(
  progressLine,
  'progress.json',
  'loom-broker/2 progress',
);
