export type { SanitizedSchema } from './sanitize';
export { SCHEMA_MAX_BYTES, sanitizeSchema } from './sanitize';
export type { SignatureInput } from './signature';
export { renderSignature, SIGNATURE_MAX_LENGTH } from './signature';
