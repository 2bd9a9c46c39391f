// The confidentiality atom of what a command computed with a credential in hand.
import type { Atom } from './label';

/** The prefix of {@link credentialAtom}: `credential:<name>`. */
export const CREDENTIAL_ATOM_PREFIX = 'credential:';

/**
 * The atom that labels the output of a command that receives credential `name`
 * (`credential:gh_token`). Redaction removes a credential's literal value, not a transformed one
 * (base64, reversed, split), so such output is as secret as the credential: only a run whose
 * ceiling names this atom sees it (`--max-confidentiality credential:gh_token`).
 */
export const credentialAtom = (name: string): Atom => `${CREDENTIAL_ATOM_PREFIX}${name}`;
