// `@harness/protocol/schema`: what the zod schemas of loom-broker/1 (wire.ts) give a peer — reading a
// request or an answer off the wire, and the JSON Schema of each wire shape. A subpath of its own so
// that the root entry loads no zod: the `loom` CLI's per-call path reads only the root and the client.

export type { JsonSchema } from './json-schema';
export {
  brokerAnswerSchema,
  brokerProgressSchema,
  brokerRequestSchema,
  commandAnswerSchema,
  manifestRowSchema,
} from './json-schema';
export type { ParseAnswerResult, ParseRequestResult, WireIssue } from './parse';
export { parseAnswer, parseRequest } from './parse';
