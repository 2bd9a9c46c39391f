// @harness/ifc: labels, ceilings, measurement, observations, referents and prompt-slot authorization.
// Pure: no Node-only imports, no runtime dependencies.

export type {
  AllowReason,
  Authorization,
  AuthorizationWarning,
  AuthorizeInput,
  DenyReason,
  PolicyMode,
  PromptSlot,
  ToolEffect,
} from './authorize';
export {
  authorize,
  POLICY_MODES,
  PROMPT_SLOTS,
  STRICT_CONTEXT_READ_TOOLS,
  TOOL_EFFECTS,
} from './authorize';
export type { Ceiling } from './ceiling';
export { fits, meetCeilings } from './ceiling';
export { CREDENTIAL_ATOM_PREFIX, credentialAtom } from './credential';
export { IfcError, IfcErrorCode } from './errors';
export type { AnyOfClause, Atom, Clause, JsonObject, JsonValue, Label } from './label';
export {
  atomKey,
  carriesReadFailedMarker,
  flowsTo,
  join,
  joinAll,
  LABEL_READ_FAILED,
  normalize,
  PUBLIC,
  READ_FAILED_ATOM,
} from './label';
export type {
  Admitted,
  LabelSource,
  Measurement,
  MeasureOptions,
  Withheld,
  WithheldReason,
} from './measure';
export {
  labelForUnlabeled,
  measure,
  WITHHELD_CEILING_EXCEEDED,
  WITHHELD_LABEL_READ_FAILED,
} from './measure';
export type { Observation, ObservationChannel } from './observe';
export { OBSERVATIONS_KEPT, ObservationLog } from './observe';
export type { CeilingRead, LabelRead, ReadIssue, ReadIssueCode } from './read';
export { MAX_ATOM_DEPTH, readCeiling, readLabel } from './read';
export type {
  DocumentReferent,
  HoldInput,
  Provenance,
  ReferentBounds,
  ReferentCitation,
  ReferentLookup,
  ReferentSource,
} from './referent';
export { REFERENT_BOUNDS, ReferentStore } from './referent';
