// The wire types of loom-broker/2 (docs/protocol.md), each inferred from its schema (wire.ts, answer.ts): a
// field is declared there and nowhere else.
import type { z } from 'zod';
import type { answerApproval, answerBodies, answerPayload, commandAnswer, receivedEnvelope } from './answer';
import type { AnswerKind } from './codes';
import type { label } from './fields';
import type {
  brokerAnswer,
  brokerRequest,
  cancelParams,
  cancelRequest,
  cancelResult,
  envelopeError,
  helloRequest,
  helloResult,
  listParams,
  listRequest,
  listResult,
  manifestRow,
  progressLine,
  runParams,
  runProgress,
  runRequest,
} from './wire';

/** A confidentiality/integrity label as `@harness/ifc` reads it; the protocol carries it as data. */
export type Label = z.infer<typeof label>;

/** One command as `list` and `loom command list --json` show it (docs/protocol.md, "Manifest rows"). */
export type ManifestRow = z.infer<typeof manifestRow>;

/**
 * The one JSON answer of `loom command run` and of a broker `run` request: one variant per
 * {@link AnswerKind}, each with its own body.
 */
export type CommandAnswer = z.infer<typeof commandAnswer>;

/** The variant of {@link CommandAnswer} of one kind. */
export type AnswerOf<K extends AnswerKind> = Extract<CommandAnswer, { kind: K }>;

/** The body of each kind of answer, by kind. */
export type AnswerBodies = { [K in AnswerKind]: z.output<(typeof answerBodies)[K]> };

/** A kind with its body, told apart by `kind`: what a client switches on. */
export type AnswerPayload = z.output<typeof answerPayload>;

/** The approval a call waits for, as a `held` or `cancelled` answer names it. */
export type AnswerApproval = z.output<typeof answerApproval>;

/**
 * A {@link CommandAnswer} as a client reads it ({@link parseAnswer}): any code a host sends, the
 * fields an answer may leave out filled in conservatively, `ifc` raw; a kind this side does not know
 * (or none) read as `result`, its body the JSON it is.
 */
export type ReceivedAnswer = Omit<z.output<typeof receivedEnvelope>, 'kind' | 'body' | 'reason'> & {
  reason?: string;
} & AnswerPayload;

/** `hello`: who this broker is. */
export type HelloRequest = z.infer<typeof helloRequest>;

/** What a `list` asks for, without its envelope. */
export type ListParams = z.infer<typeof listParams>;

/** `list`: the rows this broker's scope admits. */
export type ListRequest = z.infer<typeof listRequest>;

/** What a `run` asks for, without its envelope. */
export type RunParams = z.infer<typeof runParams>;

/** `run`: run one command as the broker's agent. */
export type RunRequest = z.infer<typeof runRequest>;

/** What a `cancel` asks for, without its envelope. */
export type CancelParams = z.infer<typeof cancelParams>;

/** `cancel`: stop a run in flight on this connection (docs/protocol.md, "Progress and cancellation"). */
export type CancelRequest = z.infer<typeof cancelRequest>;

/** Any request a broker accepts. */
export type BrokerRequest = z.infer<typeof brokerRequest>;

/** The result of a `cancel` request. */
export type CancelResult = z.infer<typeof cancelResult>;

/** How far a run in flight has come, as a {@link ProgressLine} carries it. */
export type RunProgress = z.infer<typeof runProgress>;

/** A line the broker sends about a `run` that asked for `progress`, before its answer (no `ok`). */
export type ProgressLine = z.infer<typeof progressLine>;

/** The result of a `hello` request. */
export type HelloResult = z.infer<typeof helloResult>;

/** The result of a `list` request. */
export type ListResult = z.infer<typeof listResult>;

/** An envelope-level error: the request itself could not be handled. */
export type EnvelopeError = z.infer<typeof envelopeError>;

/** One answer line of the broker. */
export type BrokerAnswer = z.infer<typeof brokerAnswer>;

/** A {@link BrokerAnswer} before the envelope (`protocol`, `id`) is put around it: what a broker's handler gives. */
export type BrokerReply = BrokerAnswer extends infer A
  ? A extends unknown
    ? Omit<A, 'protocol' | 'id'>
    : never
  : never;
