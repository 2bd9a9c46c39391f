// Each tool's input: the JSON Schema a model reads, generated from the tool's zod schema, and what
// a model is told of an input that does not read (one message, the first in reading order).
import { describe, expect, it } from 'vitest';
import { readCalls } from '../src/call-input';
import { readComposeInput } from '../src/compose-input';
import { createHostCommandTools } from '../src/host-command-tools';
import { createLoomAuthoringTools } from '../src/loom-authoring-tools';
import { readInput } from '../src/tool-input';
import { ListInput } from '../src/tools/list-commands';
import { AuthoringContextInput } from '../src/tools/loom-authoring-context';
import { InspectInput } from '../src/tools/loom-inspect';

const tools = [
  ...createHostCommandTools({ config: undefined, alwaysRegister: true }),
  ...createLoomAuthoringTools({ config: undefined, alwaysRegister: true }),
];
const schemaOf = (name: string) => JSON.stringify(tools.find((t) => t.name === name)?.inputSchema);

describe('the inputSchema a model reads', () => {
  // The bytes the hand-written schemas had: types, purposes and required fields, no bounds.
  it('lists each field’s type and purpose, without the bounds the tool enforces', () => {
    expect(schemaOf('list_commands')).toBe(
      '{"type":"object","properties":{"detail":{"type":"array","items":{"type":"string"},"description":"Up to 16 command names whose full argument schema (inputSchema) to include."}}}',
    );
    const call =
      '"command":{"type":"string","description":"A command name exactly as list_commands shows it."},"args":{"type":"object","description":"The command\'s arguments (at most 16 KiB of JSON)."},"loomId":{"type":"string","description":"The loom a command whose target is \\"loom\\" acts on."},"expectedVersion":{"type":"integer","description":"Refuse unless the loom is at this version (the loom\'s write guard)."}';
    const run = `{"type":"object","properties":{${call},"calls":{"type":"array","description":"A batch of 1 to 16 independent calls (instead of command/args); they run concurrently.","items":{"type":"object","properties":{${call}}}}}}`;
    expect(schemaOf('run_command')).toBe(run);
    expect(schemaOf('run_read_command')).toBe(run);
    expect(schemaOf('loom_inspect')).toBe(
      '{"type":"object","required":["loom_id"],"properties":{"loom_id":{"type":"string"}}}',
    );
    expect(schemaOf('loom_authoring_context')).toBe(
      '{"type":"object","properties":{"loom_id":{"type":"string","description":"A loom to read beside the receipts."}}}',
    );
  });

  it('requires what loom_compose needs and describes each component', () => {
    expect(JSON.parse(schemaOf('loom_compose') ?? '')).toEqual({
      type: 'object',
      required: ['request_id', 'components'],
      properties: {
        request_id: {
          type: 'string',
          description:
            'One key for one logical composition. On retry keep the same key and the exact same arguments.',
        },
        loom_id: {
          type: 'string',
          description: 'Extend this loom; leave out to create a new one. Never inferred from history.',
        },
        expected_version: {
          type: 'integer',
          description: 'Refuse unless the loom is at this version (needs loom_id).',
        },
        components: {
          type: 'array',
          description: '1 to 100 components, each exactly one ref or pattern_token.',
          items: {
            type: 'object',
            properties: {
              ref: {
                type: 'string',
                description:
                  'A reference starting page: artifact: url: person: thread: moment: loom: wish: intention: chat: run:',
              },
              pattern_token: { type: 'string', description: 'A Pattern Instance token you hold.' },
              title: { type: 'string' },
              stage: { type: 'string' },
              focus: { type: 'boolean' },
            },
          },
        },
      },
    });
  });
});

/** What readCalls tells a model of `input`, or "ok". */
const runSays = (input: unknown): string => {
  const read = readCalls(input);
  if (!read.ok) return `${read.code}: ${read.message}`;
  return read.calls.map((c) => (c.ok ? 'ok' : c.message)).join(' | ');
};

describe('run_command input', () => {
  it.each([
    [7, 'invalid_input: Give one call { command, args } or a batch { calls: [...] }.'],
    [
      { command: 'a', calls: [] },
      'invalid_input: Give either command (one call) or calls (a batch), not both.',
    ],
    [{ calls: [{ command: 'a' }], args: {} }, 'invalid_input: A batch takes only "calls".'],
    [{ calls: 'a' }, 'invalid_input: calls must be a list of calls.'],
    [{ calls: [] }, 'invalid_input: A batch carries 1 to 16 calls (found none).'],
    [
      { calls: Array(17).fill({ command: 'a' }) },
      'batch_too_large: A batch carries at most 16 calls (found 17); split it. Nothing was sent.',
    ],
    [{}, 'invalid_input: command must be the name of a listed command.'],
    [{ command: 'x'.repeat(257) }, 'invalid_input: command must be the name of a listed command.'],
    [
      { command: 5, nope: 1 },
      'invalid_input: A call takes command, args, loomId and expectedVersion only (found "nope").',
    ],
    [{ command: 'a', args: [1] }, 'invalid_input: args must be a JSON object.'],
    [
      { command: 'a', args: { x: 'y'.repeat(16 * 1024) } },
      'invalid_input: args take at most 16384 bytes of JSON (found 16392).',
    ],
    [
      { command: 'a', loomId: 'has space' },
      'invalid_input: loomId must be a loom id (a non-empty string without spaces).',
    ],
    [{ command: 'a', expectedVersion: -1 }, 'invalid_input: expectedVersion must be a non-negative integer.'],
    [
      { command: 'a', expectedVersion: 1.5 },
      'invalid_input: expectedVersion must be a non-negative integer.',
    ],
    [{ command: 'a', args: null, loomId: 'l-1', expectedVersion: 0 }, 'ok'],
  ])('%j reads as: %s', (input, says) => {
    expect(runSays(input)).toBe(says);
  });

  it('fails each call of a batch that does not read alone, beside the others', () => {
    expect(runSays({ calls: [{ command: 'a' }, 'b', { command: 'c', x: 1 }] })).toBe(
      'ok | A call is an object: { command, args?, loomId?, expectedVersion? }. | A call takes command, args, loomId and expectedVersion only (found "x").',
    );
  });

  it('hands on the arguments as the model wrote them, a "__proto__" key included', () => {
    const args = JSON.parse('{"__proto__":{"a":1},"b":2}') as Record<string, unknown>;
    const read = readCalls({ command: 'a', args });
    expect(read.ok && read.calls[0]?.ok && read.calls[0].call.args).toBe(args);
  });
});

/** What readComposeInput tells a model of `input`, or "ok". */
const composeSays = (input: unknown): string => {
  const read = readComposeInput(input);
  return read.ok ? 'ok' : read.message;
};

describe('loom_compose input', () => {
  const c = [{ ref: 'page:p1' }];
  it.each([
    [null, 'loom_compose takes { request_id, loom_id?, expected_version?, components }.'],
    [{ request_id: 'r', components: c, nope: 1 }, 'Unknown field "nope".'],
    [
      { request_id: 'has space', components: c },
      'request_id is required: one key (letters, digits, _.:-) for one logical composition, kept on retry.',
    ],
    [{ request_id: 'r', loom_id: '', components: c }, 'loom_id must be a loom id.'],
    [
      { request_id: 'r', expected_version: 1.5, components: [] },
      'expected_version guards an existing loom: give loom_id with it.',
    ],
    [
      { request_id: 'r', loom_id: 'l', expected_version: 0, components: c },
      'expected_version must be a positive integer.',
    ],
    [{ request_id: 'r', components: Array(101).fill(c[0]) }, 'components must hold 1 to 100 components.'],
    [{ request_id: 'r', components: [{ ref: 'page:p' }, 3] }, 'components[1] must be an object.'],
    [{ request_id: 'r', components: [{ ref: 5, x: 1 }] }, 'components[0] has an unknown field "x".'],
    [
      { request_id: 'r', components: [{ title: 5 }] },
      'components[0] needs exactly one of ref and pattern_token.',
    ],
    [
      { request_id: 'r', components: [{ ref: 'nope:x' }] },
      'components[0].ref must start with one of page: artifact: url: person: thread: moment: loom: wish: intention: chat: run:; a pattern is named by pattern_token.',
    ],
    [
      { request_id: 'r', components: [{ pattern_token: '' }] },
      'components[0].pattern_token must be a held token.',
    ],
    [
      { request_id: 'r', components: [{ ref: 'page:p', title: '' }] },
      'components[0].title must be 1-200 characters.',
    ],
    [
      { request_id: 'r', components: [{ ref: 'page:p', stage: 1 }] },
      'components[0].stage must be a stage name.',
    ],
    [
      { request_id: 'r', components: [{ ref: 'page:p', focus: 'y' }] },
      'components[0].focus must be true or false.',
    ],
    [{ request_id: 'r', loom_id: 'l', expected_version: 2, components: c }, 'ok'],
  ])('%j reads as: %s', (input, says) => {
    expect(composeSays(input)).toBe(says);
  });
});

describe('the other tools’ input', () => {
  const says = (read: ReturnType<typeof readInput>) => (read.ok ? 'ok' : read.issue.message);
  it.each([
    [[], 'list_commands takes an object: { detail?: string[] }.'],
    [{ detail: [], more: 1 }, 'list_commands takes only "detail" (found "more").'],
    [{ detail: [...Array(17).fill('a'), 5] }, 'detail must be a list of command names.'],
    [{ detail: Array(17).fill('a') }, 'detail names at most 16 commands (found 17); ask in several calls.'],
    [{ detail: null }, 'ok'],
  ])('list_commands reads %j as: %s', (input, message) => {
    expect(says(readInput(ListInput, input))).toBe(message);
  });

  it.each([[undefined], [{}], [{ loom_id: 'l', x: 1 }], [{ loom_id: 'has space' }]])(
    'loom_inspect reads %j as one fixed message',
    (input) => {
      expect(says(readInput(InspectInput, input))).toBe('loom_inspect takes { loom_id }.');
    },
  );

  it.each([[7], [{ x: 1 }], [{ loom_id: 5 }]])(
    'loom_authoring_context reads %j as one fixed message',
    (input) => {
      expect(says(readInput(AuthoringContextInput, input))).toBe(
        'loom_authoring_context takes { loom_id? } only.',
      );
    },
  );
});
