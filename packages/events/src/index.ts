export type {
  RenderContextInput,
  RunContextPath,
  RunRenderContext,
  RunTemplateOptions,
  RunTrigger,
  Supplier,
} from './context';
export {
  allowSets,
  buildRenderContext,
  parseRunTemplate,
  RUN_TRIGGERS,
  runContext,
  runContextPaths,
} from './context';
export type {
  EnvelopeInput,
  EnvelopeIssue,
  EnvelopeIssueCode,
  EnvelopeResult,
  EnvelopeV1,
  LoadedEnvelope,
  ReplayOptions,
} from './envelope';
export {
  buildEnvelope,
  ENVELOPE_VERSION,
  eventIdFor,
  formatTimestamp,
  parseEnvelope,
  SOURCE_PATTERN,
  serializeEnvelope,
  TIMESTAMP_PATTERN,
} from './envelope';
export { EventsError, EventsErrorCode } from './errors';
export type { Dropped, ExtractInput, Extraction, Typed, Untrusted } from './extract';
export { extract, extractWith } from './extract';
export type { Check, DropRule } from './patterns';
export {
  ACTOR_PATTERN,
  checkAction,
  checkActor,
  checkMetaKey,
  checkMetaValue,
  checkName,
  checkNumber,
  checkRepo,
  checkSha,
  checkUrl,
  EVENT_ID_PATTERN,
  isEventId,
  META_KEY_PATTERN,
  META_VALUE_PATTERN,
  NAME_PATTERN,
  NUMBER_MAX,
  REPO_PATTERN,
  SHA_PATTERN,
  URL_MAX_BYTES,
} from './patterns';
export type { ExtractorTable, Scheme, TypedField, TypedRow, UntrustedField, UntrustedRow } from './tables';
export { extractorTables, isScheme, readPath, UNTRUSTED_FIELDS } from './tables';
export type { TrustedActorIssue, TrustedActorsResult } from './trusted';
export { checkTrustedActors } from './trusted';
