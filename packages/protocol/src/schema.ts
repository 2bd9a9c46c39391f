// `@harness/protocol/schema`: what the zod schemas of loom-broker/2 (wire.ts, answer.ts) give a peer —
// reading a request or an answer off the wire, the JSON Schema of each wire shape, and the schema of
// each kind's body (`answerBodies`) for a peer that carries a body in a schema of its own. A subpath
// of its own so that the root entry loads no zod: the `loom` CLI's per-call path reads only the root
// and the client.

export { answerBodies } from './answer';
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
