// The identifier shapes more than one config file uses, declared once.

/**
 * An id: lowercase letters, digits, `-` and `_`, starting with a letter or a digit, and no dot (pack
 * and command ids: the dot joins them into a manifest id such as `git.status`).
 */
export const ID_PATTERN = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * An {@link ID_PATTERN} id of at most 63 characters: one that becomes a path segment, a URL path or
 * part of a source name (the runner's harness and source ids: `/hooks/<id>`, `webhook.<id>`).
 */
export const SHORT_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** An environment variable name: letters, digits and `_`, not starting with a digit. */
export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
