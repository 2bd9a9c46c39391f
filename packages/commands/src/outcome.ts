// The one typed outcome of every tool: a zod schema per variant, the union per tool, and the union of
// them all. The builders return these types; readers switch on `status`; MCP's `outputSchema` is
// generated from them (output-schema.ts). Parsing is for the edges (a client, a test): the builders
// construct typed values and never parse them.
import type { DenyReason, LabelSource, WithheldReason } from '@harness/ifc';
import type { AnswerKind } from '@harness/protocol';
import { answerBodies } from '@harness/protocol/schema';
import { z } from 'zod';
import {
  DeliveryCode,
  EntryStatus,
  HOST_REFUSALS,
  Landed,
  LOOM_AUTHORED,
  LOOM_HOST_REFUSALS,
  LoomFailureCode,
  LoomRefusalCode,
  OutcomeStatus,
  PatternRefusalCode,
  ReadRefusal,
  RefusalCode,
} from './outcome-codes';

/** Lists every value of a string union, checked complete at compile time: a value `T` gains breaks the build here. */
const allOf =
  <T extends string>() =>
  <const V extends readonly [T, ...T[]]>(values: V & ([T] extends [V[number]] ? unknown : never)): V =>
    values;

// Each use builds its own instance: the JSON Schema generator refers to a reused instance by `$ref`,
// which serves shared objects well and plain strings badly.
/** A key this form never carries (JSON Schema `not: {}`): it tells the forms of a union apart. */
const absent = () => z.never().optional();
const count = () => z.int().nonnegative();
const text = () => z.string();
const texts = () => z.array(z.string());
/** Set on a call of a batch shrunk to its smallest form to fit the output bound. */
const summaryOmitted = () => z.literal(true).optional();
const DENY_REASONS = allOf<DenyReason>()([
  'cfc_write_requires_direct_command',
  'cfc_enforce_strict_requires_direct_command',
  'cfc_policy_mode_unknown',
  'cfc_prompt_slot_unknown',
  'cfc_tool_effect_unknown',
  'cfc_tool_unknown',
]);
/** Why the run's policy (`@harness/ifc`) refused this task the tool. */
const policyReason = () => z.enum(DENY_REASONS);

// failed_to_deliver ------------------------------------------------------------------------------

/** Nothing reached the host. `outputId` is absent only where no run was at hand to mint one. */
export const NotDeliveredOutcome = z.strictObject({
  outputId: text().optional(),
  status: z.literal(OutcomeStatus.failed_to_deliver),
  landed: z.literal(Landed.no),
  code: z.enum(DeliveryCode).exclude([DeliveryCode.answer_lost]),
  command: text().optional(),
  /** With `not_authorized`: why the run's policy refused. */
  reasonCode: policyReason().optional(),
  message: text().optional(),
  summaryOmitted: summaryOmitted(),
});

/** Sent, and no answer could be read: it may have taken effect. */
export const AnswerLostOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.failed_to_deliver),
  landed: z.literal(Landed.unknown),
  code: z.literal(DeliveryCode.answer_lost),
  command: text().optional(),
  hint: text().optional(),
  summaryOmitted: summaryOmitted(),
});

/** `failed_to_deliver`, by whether the call may have landed. */
export const FailedToDeliverOutcome = z.discriminatedUnion('landed', [
  NotDeliveredOutcome,
  AnswerLostOutcome,
]);

// unknown_command, not_granted -------------------------------------------------------------------

/** A command the run's catalog does not show; nothing was sent. */
export const UnknownCommandOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.unknown_command),
  command: text().optional(),
  suggestions: texts().optional(),
  hint: text().optional(),
  summaryOmitted: summaryOmitted(),
});

/** `run_read_command` refused a command that is not a granted read; nothing was sent. */
export const NotGrantedOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.not_granted),
  landed: z.literal(Landed.no),
  code: z.literal(RefusalCode.not_granted),
  command: text().optional(),
  reasonCode: z.enum(ReadRefusal).optional(),
  hint: text().optional(),
  summaryOmitted: summaryOmitted(),
});

// executed ---------------------------------------------------------------------------------------

/**
 * What the command layer said, cut to identifiers. `code` is the host's, or for a refusal one of
 * {@link RefusalCode} with the host's own as `hostCode`. A batch replaces `completed` by its count
 * (`completedOmitted`); a batch's smallest form keeps only `ok`, `code` and `bodyBytes`.
 */
export const AnsweredSummary = z.strictObject({
  withheld: absent(),
  ok: z.boolean(),
  id: text().optional(),
  code: text(),
  mayHaveLanded: z.boolean().optional(),
  completed: texts().optional(),
  completedOmitted: count().optional(),
  bodyBytes: count(),
  hostCode: z.enum(HOST_REFUSALS).optional(),
  reason: text().optional(),
});

/** A withheld answer's summary: the same for every answer of the command (`completedOmitted` 0 in a batch). */
export const WithheldSummary = z.strictObject({
  withheld: z.literal(true),
  mayHaveLanded: z.boolean(),
  completedOmitted: z.literal(0).optional(),
});

/** An executed call's `outcome`. */
export const CallSummary = z.union([AnsweredSummary, WithheldSummary]);

/** An admitted answer of one kind: its referent, its kind, and its value unless it was left out to fit. */
const admitted = <K extends AnswerKind>(kind: K) =>
  z.strictObject({
    status: z.literal(EntryStatus.admitted),
    labelSource: z.enum(allOf<LabelSource>()(['row', 'query'])),
    referent: text(),
    /** What the host answered (`@harness/protocol`'s answer kinds): what `value` holds. */
    kind: z.literal(kind),
    /** The body of the host's answer, strings cut to `LIMITS.entryString`. */
    value: z.optional(answerBodies[kind]),
  });

/** An admitted answer, told apart by its kind. */
export const AdmittedEntry = z.discriminatedUnion('kind', [
  admitted('ran'),
  admitted('held'),
  admitted('refused'),
  admitted('cancelled'),
  admitted('failed'),
  admitted('composed'),
  admitted('inspected'),
  admitted('context'),
  admitted('version_conflict'),
  admitted('request_conflict'),
  admitted('not_found'),
  admitted('tool_result'),
  admitted('result'),
]);

/** A withheld answer: why, and nothing of it. */
export const WithheldEntry = z.strictObject({
  status: z.literal(EntryStatus.withheld),
  reasonCode: z.enum(allOf<WithheldReason>()(['cfc_ceiling_exceeded', 'cfc_label_read_failed'])),
});

/** An executed call's `entry`. */
export const Entry = z.discriminatedUnion('status', [AdmittedEntry, WithheldEntry]);

/**
 * A call the command layer answered. A lone call always carries `command` and `truncated`; in a
 * batch, `truncated` appears only as `true`, and the smallest form drops `command`, `hint` and
 * `signature` (`summaryOmitted`).
 */
export const ExecutedOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.executed),
  command: text().optional(),
  outcome: CallSummary,
  hint: text().optional(),
  /** After `bad-args`: the command's signature, so the model can fix its arguments. */
  signature: text().optional(),
  entry: Entry,
  truncated: z.boolean().optional(),
  summaryOmitted: summaryOmitted(),
});

/** One call's result, alone or in a batch. */
export const CallOutcome = z.discriminatedUnion('status', [
  ExecutedOutcome,
  UnknownCommandOutcome,
  FailedToDeliverOutcome,
  NotGrantedOutcome,
]);

/** A batch: one result per call, in order, under one output bound. */
export const BatchOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.batch),
  results: z.array(CallOutcome),
  truncated: z.boolean(),
});

// list_commands ----------------------------------------------------------------------------------

/** One command of a listing; `inputSchema` only for a `detail` name. */
export const ListEntry = z.strictObject({
  name: text(),
  signature: text(),
  title: text().optional(),
  description: text().optional(),
  readOnlyGranted: z.literal(true).optional(),
  inputSchema: z.union([z.record(z.string(), z.unknown()), z.literal(true)]).optional(),
});

/** The `list_commands` success. */
export const ListingOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.ok),
  notice: text(),
  entries: z.array(ListEntry),
  hidden: count(),
  omitted: count(),
  compacted: count(),
  /** Tools held back until a person accepts their definitions; absent when none. */
  quarantined: count().optional(),
});

// Loom tools -------------------------------------------------------------------------------------

/** A compose receipt, documented fields only. */
export const LoomReceipt = z.strictObject({
  loom_id: text(),
  request_id: text(),
  version: z.number(),
  created: z.boolean(),
  component_ids: texts(),
  operation_ids: texts(),
  displaced: texts(),
  committed_at: text().optional(),
});

/** A loom as the model sees it: no references, no renderer internals. */
export const LoomView = z.strictObject({
  loom_id: text(),
  version: z.number(),
  components: z.array(
    z.strictObject({
      id: text().nullable(),
      kind: text(),
      title: text().optional(),
      stage: text().optional(),
      position: z.number().optional(),
    }),
  ),
  layout: z.strictObject({
    stages: z.record(z.string(), z.unknown()),
    shelf: z.array(z.unknown()),
    focus: text().nullable(),
  }),
});

/** The `loom_compose` success. */
export const LoomComposedOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.ok),
  kind: z.literal(LOOM_AUTHORED),
  receipt: LoomReceipt,
  replayed: z.boolean(),
  current_version: z.number(),
  displaced: texts(),
  note: text().optional(),
  turnCancelled: z.literal(true).optional(),
});

/** The `loom_inspect` success. */
export const LoomInspectedOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.ok),
  ...LoomView.shape,
});

/** The `loom_authoring_context` success: history, never a write target. */
export const LoomContextOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.ok),
  receipts: z.array(LoomReceipt),
  target: LoomView.nullable(),
  note: text(),
  target_unavailable: z.strictObject({ loom_id: text(), reason: z.literal('unavailable') }).optional(),
  deployed_patterns: z.array(z.strictObject({ pattern_token: text() })).optional(),
});

/** A Loom call the harness or the host would not do, with fixed guidance. */
export const RefusedOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.refused),
  code: z.enum([
    ...Object.values(LoomRefusalCode),
    ...Object.values(PatternRefusalCode),
    ...LOOM_HOST_REFUSALS,
  ]),
  guidance: text(),
  reasonCode: policyReason().optional(),
});

/** A failed Loom call; `landed: "no"` where nothing was sent. */
export const FailedOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.failed),
  landed: z.literal(Landed.no).optional(),
  code: z.enum(LoomFailureCode),
  guidance: text(),
});

/** A Loom call whose outcome nobody knows: a composition may have been committed. */
export const UncertainOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.uncertain),
  guidance: text(),
});

/** A Loom call the turn cancelled before the host was called. */
export const CancelledOutcome = z.strictObject({
  outputId: text(),
  status: z.literal(OutcomeStatus.cancelled),
  landed: z.literal(Landed.no),
  guidance: text(),
});

// Per tool, and all together ---------------------------------------------------------------------

/** What `list_commands` returns. */
export const ListCommandsOutcome = z.discriminatedUnion('status', [ListingOutcome, FailedToDeliverOutcome]);

/** What `run_command` and `run_read_command` return. */
export const RunCommandOutcome = z.discriminatedUnion('status', [
  ExecutedOutcome,
  UnknownCommandOutcome,
  FailedToDeliverOutcome,
  NotGrantedOutcome,
  BatchOutcome,
]);

/** What a Loom tool returns besides its success (a failure to deliver: input nested too deep, say). */
const LOOM_FAILURES = [
  RefusedOutcome,
  FailedOutcome,
  UncertainOutcome,
  CancelledOutcome,
  FailedToDeliverOutcome,
] as const;

/** What `loom_compose` returns. */
export const LoomComposeOutcome = z.discriminatedUnion('status', [LoomComposedOutcome, ...LOOM_FAILURES]);
/** What `loom_inspect` returns. */
export const LoomInspectOutcome = z.discriminatedUnion('status', [LoomInspectedOutcome, ...LOOM_FAILURES]);
/** What `loom_authoring_context` returns. */
export const LoomAuthoringContextOutcome = z.discriminatedUnion('status', [
  LoomContextOutcome,
  ...LOOM_FAILURES,
]);

/**
 * Every result of every tool, switched on by `status`. Four successes share `status: "ok"` (a
 * listing and the three Loom tools' answers) and are told apart by their fields; every other status
 * is one variant.
 */
export const ToolOutcome = z.union([
  ListingOutcome,
  LoomComposedOutcome,
  LoomInspectedOutcome,
  LoomContextOutcome,
  z.discriminatedUnion('status', [
    ExecutedOutcome,
    BatchOutcome,
    UnknownCommandOutcome,
    FailedToDeliverOutcome,
    NotGrantedOutcome,
    RefusedOutcome,
    FailedOutcome,
    UncertainOutcome,
    CancelledOutcome,
  ]),
]);

/** The outcome schema of each tool by name: what it can return, and nothing else. */
export const TOOL_OUTCOMES = {
  list_commands: ListCommandsOutcome,
  run_command: RunCommandOutcome,
  run_read_command: RunCommandOutcome,
  loom_compose: LoomComposeOutcome,
  loom_inspect: LoomInspectOutcome,
  loom_authoring_context: LoomAuthoringContextOutcome,
} as const;

/**
 * The default branch of an exhaustive switch over a union: the compiler proves it is never reached,
 * and a value that reaches it anyway (an outcome built past the types) throws rather than reads as
 * something else.
 */
export function unreachable(value: never): never {
  throw new TypeError(`unexpected outcome: ${JSON.stringify(value)?.slice(0, 200)}`);
}

/** The outcome schema of the tool named `tool`: its own, or {@link ToolOutcome} for a tool of another kind. */
export function outcomeSchemaOf(tool: string): z.ZodType<ToolOutcome> {
  return Object.hasOwn(TOOL_OUTCOMES, tool) ? TOOL_OUTCOMES[tool as keyof typeof TOOL_OUTCOMES] : ToolOutcome;
}

/** The type of {@link NotDeliveredOutcome}. */
export type NotDeliveredOutcome = z.infer<typeof NotDeliveredOutcome>;
/** The type of {@link AnswerLostOutcome}. */
export type AnswerLostOutcome = z.infer<typeof AnswerLostOutcome>;
/** The type of {@link FailedToDeliverOutcome}. */
export type FailedToDeliverOutcome = z.infer<typeof FailedToDeliverOutcome>;
/** The type of {@link UnknownCommandOutcome}. */
export type UnknownCommandOutcome = z.infer<typeof UnknownCommandOutcome>;
/** The type of {@link NotGrantedOutcome}. */
export type NotGrantedOutcome = z.infer<typeof NotGrantedOutcome>;
/** The type of {@link AnsweredSummary}. */
export type AnsweredSummary = z.infer<typeof AnsweredSummary>;
/** The type of {@link WithheldSummary}. */
export type WithheldSummary = z.infer<typeof WithheldSummary>;
/** The type of {@link CallSummary}. */
export type CallSummary = z.infer<typeof CallSummary>;
/** The type of {@link AdmittedEntry}. */
export type AdmittedEntry = z.infer<typeof AdmittedEntry>;
/** The type of {@link WithheldEntry}. */
export type WithheldEntry = z.infer<typeof WithheldEntry>;
/** The type of {@link Entry}. */
export type Entry = z.infer<typeof Entry>;
/** The type of {@link ExecutedOutcome}. */
export type ExecutedOutcome = z.infer<typeof ExecutedOutcome>;
/** The type of {@link CallOutcome}. */
export type CallOutcome = z.infer<typeof CallOutcome>;
/** The type of {@link BatchOutcome}. */
export type BatchOutcome = z.infer<typeof BatchOutcome>;
/** The type of {@link ListEntry}. */
export type ListEntry = z.infer<typeof ListEntry>;
/** The type of {@link ListingOutcome}. */
export type ListingOutcome = z.infer<typeof ListingOutcome>;
/** The type of {@link LoomReceipt}. */
export type LoomReceipt = z.infer<typeof LoomReceipt>;
/** The type of {@link LoomView}. */
export type LoomView = z.infer<typeof LoomView>;
/** The type of {@link LoomComposedOutcome}. */
export type LoomComposedOutcome = z.infer<typeof LoomComposedOutcome>;
/** The type of {@link LoomInspectedOutcome}. */
export type LoomInspectedOutcome = z.infer<typeof LoomInspectedOutcome>;
/** The type of {@link LoomContextOutcome}. */
export type LoomContextOutcome = z.infer<typeof LoomContextOutcome>;
/** The type of {@link RefusedOutcome}. */
export type RefusedOutcome = z.infer<typeof RefusedOutcome>;
/** The type of {@link FailedOutcome}. */
export type FailedOutcome = z.infer<typeof FailedOutcome>;
/** The type of {@link UncertainOutcome}. */
export type UncertainOutcome = z.infer<typeof UncertainOutcome>;
/** The type of {@link CancelledOutcome}. */
export type CancelledOutcome = z.infer<typeof CancelledOutcome>;
/** The type of {@link ListCommandsOutcome}. */
export type ListCommandsOutcome = z.infer<typeof ListCommandsOutcome>;
/** The type of {@link RunCommandOutcome}. */
export type RunCommandOutcome = z.infer<typeof RunCommandOutcome>;
/** The type of {@link LoomComposeOutcome}. */
export type LoomComposeOutcome = z.infer<typeof LoomComposeOutcome>;
/** The type of {@link LoomInspectOutcome}. */
export type LoomInspectOutcome = z.infer<typeof LoomInspectOutcome>;
/** The type of {@link LoomAuthoringContextOutcome}. */
export type LoomAuthoringContextOutcome = z.infer<typeof LoomAuthoringContextOutcome>;
/** The type of {@link ToolOutcome}. */
export type ToolOutcome = z.infer<typeof ToolOutcome>;
