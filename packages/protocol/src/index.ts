// Public surface of @harness/protocol: the loom-broker/2 wire protocol shared by the broker
// (`@harness/host`), the `loom` CLI and the harness (`@harness/commands`). Node-free, and free of zod
// at run time (its types are inferred from the zod schemas, which load only behind the subpaths):
// parsing and the JSON Schema are `@harness/protocol/schema`, the line server
// `@harness/protocol/server`, the socket client `@harness/protocol/client`.

export { ANSWER_TOO_LARGE, answerTooLarge } from './bounds';
export type {
  AnswerCode,
  AnswerKind,
  EnvelopeErrorCode,
  ExitFailure,
  HeldReason,
  RefKind,
  SpawnStatus,
} from './codes';
export {
  ANSWER_CODES,
  ANSWER_KINDS,
  ENVELOPE_ERROR_CODES,
  EXIT,
  EXIT_FAILURE_WORDS,
  EXIT_FAILURES,
  HELD_REASONS,
  isExitFailure,
  REF_KINDS,
  SPAWN_STATUSES,
} from './codes';
export { QUEUE_PATH_DEPRECATION, queuePathDeprecation, warnQueuePath } from './deprecations';
export type { Line } from './framing';
export { encodeLine, exceedsBytes, LineReader, utf8Length } from './framing';
export { isLoomId, LOOM_ID_PATTERN } from './ids';
export {
  MAX_ANSWER_LINE_BYTES,
  MAX_ARGS_BYTES,
  MAX_COMPOSE_COMPONENTS,
  MAX_CONTEXT_RECEIPTS,
  MAX_INFLIGHT_PER_CONNECTION,
  MAX_PENDING_REQUESTS,
  MAX_REQUEST_LINE_BYTES,
  PROGRESS_INTERVAL_MS,
} from './limits';
export type {
  AnswerApproval,
  AnswerBodies,
  AnswerOf,
  AnswerPayload,
  BrokerAnswer,
  BrokerReply,
  BrokerRequest,
  CancelParams,
  CancelRequest,
  CancelResult,
  CommandAnswer,
  EnvelopeError,
  HelloRequest,
  HelloResult,
  Label,
  ListParams,
  ListRequest,
  ListResult,
  ManifestRow,
  ProgressLine,
  ReceivedAnswer,
  RunParams,
  RunProgress,
  RunRequest,
} from './types';
export type { BrokerProtocol } from './version';
export { BROKER_PROTOCOL, protocolMismatch } from './version';
