import { randomBytes } from 'node:crypto';

/** A new random id, `<prefix>-<16 hex>` (looms, components, operations, approvals). */
export const newId = (prefix: string): string => `${prefix}-${randomBytes(8).toString('hex')}`;
