import { CodedError, type CodeOf, defineCodes } from '@harness/errors';

/**
 * The codes an {@link IfcError} can carry. Callers branch on `code`, never on message text.
 */
export const IfcErrorCode = defineCodes({
  /** A value given where a label was required is not a readable label. */
  invalid_label: 'invalid_label',
  /** A ceiling was missing or unreadable where one had to be stated; the call is refused. */
  ceiling_unavailable: 'ceiling_unavailable',
  /** Only an admitted measurement can be held as a referent. */
  not_admitted: 'not_admitted',
  /** A referent id named no referent held by this store. */
  unknown_referent: 'unknown_referent',
  /** A referent id named a document the store held once and dropped past its bound. */
  expired_referent: 'expired_referent',
  /** A store bound was not a positive whole number. */
  invalid_bound: 'invalid_bound',
  /** A referent's provenance lacked its command or actor. */
  invalid_provenance: 'invalid_provenance',
});

/** One of the {@link IfcErrorCode} values. */
export type IfcErrorCode = CodeOf<typeof IfcErrorCode>;

/**
 * The one error class of `@harness/ifc`, thrown only for programming errors (a wrong argument a type
 * would have caught). Expected failures, such as an unreadable label from a host, are returned as data.
 */
export class IfcError extends CodedError<IfcErrorCode> {
  override readonly name = 'IfcError';
}
