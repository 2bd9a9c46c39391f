// The JSON Schema of the broker protocol (loom-broker/1). The broker validates every request line
// against `brokerRequestSchema`; `brokerAnswerSchema` is what it promises to send back.
import { ANSWER_CODES, ENVELOPE_ERROR_CODES } from './codes';
import { BROKER_PROTOCOL } from './version';

const id = { type: 'string', minLength: 1, maxLength: 128 } as const;
const base = { protocol: { const: BROKER_PROTOCOL }, id } as const;

/** JSON Schema (draft 2020-12 subset) of one broker request line. */
export const brokerRequestSchema = {
  $id: 'https://harness.dev/schemas/loom-broker-1/request.json',
  title: 'loom-broker/1 request',
  oneOf: [
    {
      type: 'object',
      required: ['protocol', 'id', 'op'],
      properties: { ...base, op: { const: 'hello' } },
    },
    {
      type: 'object',
      required: ['protocol', 'id', 'op'],
      properties: {
        ...base,
        op: { const: 'list' },
        jobId: { type: 'string', minLength: 1, maxLength: 256 },
        ifNoneMatch: { type: 'string', maxLength: 128 },
      },
    },
    {
      type: 'object',
      required: ['protocol', 'id', 'op', 'command', 'args'],
      properties: {
        ...base,
        op: { const: 'run' },
        command: { type: 'string', minLength: 1, maxLength: 256 },
        args: { type: 'object' },
        loomId: { type: 'string', minLength: 1, maxLength: 128 },
        expectedVersion: { type: 'integer', minimum: 1 },
        readOnly: { type: 'boolean' },
        jobId: { type: 'string', minLength: 1, maxLength: 256 },
        progress: { type: 'boolean' },
      },
    },
    {
      type: 'object',
      required: ['protocol', 'id', 'op', 'target'],
      properties: { ...base, op: { const: 'cancel' }, target: id },
    },
  ],
} as const;

const label = {
  type: 'object',
  properties: { confidentiality: { type: 'array' }, integrity: { type: 'array' } },
} as const;

/** JSON Schema of a `CommandAnswer` (the `result` of a `run`, and the stdout of `loom command run`). */
export const commandAnswerSchema = {
  $id: 'https://harness.dev/schemas/loom-broker-1/command-answer.json',
  type: 'object',
  required: ['ok', 'id', 'code', 'mayHaveLanded', 'completed', 'body'],
  properties: {
    ok: { type: 'boolean' },
    id: { type: 'string' },
    code: { enum: [...ANSWER_CODES] },
    reason: { type: 'string' },
    mayHaveLanded: { type: 'boolean' },
    completed: { type: 'array', items: { type: 'string' } },
    body: {},
    ifc: label,
  },
} as const;

/** JSON Schema of a manifest row. */
export const manifestRowSchema = {
  $id: 'https://harness.dev/schemas/loom-broker-1/manifest-row.json',
  type: 'object',
  required: ['id', 'title', 'help', 'inputs'],
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    help: { type: 'string' },
    inputs: {},
    outputs: { type: 'array', items: { type: 'string' } },
    effect: { enum: ['read', 'write'] },
    scope: { type: 'string' },
    readOnlyGranted: { type: 'boolean' },
    ifc: label,
    timeoutMs: { type: 'integer', minimum: 1 },
  },
} as const;

/** JSON Schema of one broker answer line. */
export const brokerAnswerSchema = {
  $id: 'https://harness.dev/schemas/loom-broker-1/answer.json',
  title: 'loom-broker/1 answer',
  oneOf: [
    {
      type: 'object',
      required: ['protocol', 'id', 'ok', 'result'],
      properties: {
        protocol: { const: BROKER_PROTOCOL },
        id: { type: 'string' },
        ok: { const: true },
        result: {},
      },
    },
    {
      type: 'object',
      required: ['protocol', 'id', 'ok', 'error'],
      properties: {
        protocol: { const: BROKER_PROTOCOL },
        id: { type: 'string' },
        ok: { const: false },
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { enum: [...ENVELOPE_ERROR_CODES] }, message: { type: 'string' } },
        },
      },
    },
  ],
} as const;

/** JSON Schema of one progress line: sent only for a `run` that asked for `progress`, before its answer. */
export const brokerProgressSchema = {
  $id: 'https://harness.dev/schemas/loom-broker-1/progress.json',
  title: 'loom-broker/1 progress',
  type: 'object',
  required: ['protocol', 'id', 'progress'],
  properties: {
    protocol: { const: BROKER_PROTOCOL },
    id: { type: 'string' },
    progress: {
      type: 'object',
      required: ['elapsedMs', 'outputBytes'],
      properties: {
        elapsedMs: { type: 'integer', minimum: 0 },
        outputBytes: { type: 'integer', minimum: 0 },
      },
    },
  },
} as const;
