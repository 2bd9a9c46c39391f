// Defaults shared by both host clients, declared once.

/** How long one host call may take before its outcome reads as lost (120 s): `timeoutMs` overrides it. */
export const DEFAULT_HOST_TIMEOUT_MS = 120_000;
