// The base class of every package's one error class: a stable snake_case code and typed details.

/**
 * The `details` a package's codes carry, keyed by code. A code absent from the map carries none.
 * Example: `{ unresolved: { path: string } }`.
 */
export type DetailsByCode<Code extends string> = { readonly [C in Code]?: object };

/** The details of code `C` under map `D`, or `undefined` when that code carries none. */
export type DetailsOf<D, C extends string> = C extends keyof D ? D[C] : undefined;

/** What a {@link CodedError} may be constructed with besides its code and message. */
export interface CodedErrorOptions<Details> {
  readonly cause?: unknown;
  readonly details?: Details;
}

/**
 * The base every package's error class extends (`class ExecError extends CodedError<ExecErrorCode>`),
 * so each package's `errors.ts` is a table of codes and details, not a copy of a class. Callers
 * branch on `code`, never on the message; `details` holds what a caller needs as data (paths,
 * positions, expected/found), never a secret.
 */
export class CodedError<
  Code extends string,
  D extends DetailsByCode<Code> = Record<never, never>,
> extends Error {
  /** What failed, as a stable snake_case code of the package's code table. */
  readonly code: Code;
  /** The code's details, where the package declares them for it. */
  readonly details: DetailsOf<D, Code> | undefined;

  constructor(code: Code, message: string, options: CodedErrorOptions<DetailsOf<D, Code>> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }

  /** Whether this error has `code`; narrows `code` and `details` together. */
  is<C extends Code>(code: C): this is this & { readonly code: C; readonly details: DetailsOf<D, C> } {
    return this.code === code;
  }
}

/**
 * A code table checked at compile time: every key is spelled as its value, in snake_case
 * (`defineCodes({ invalid_argv: 'invalid_argv' })`). Returns the table unchanged.
 */
export function defineCodes<const T extends { readonly [K in keyof T]: K & SnakeCase<K> }>(table: T): T {
  return table;
}

/** One value of a code table. */
export type CodeOf<T> = T[keyof T];

type Lower =
  | 'a'
  | 'b'
  | 'c'
  | 'd'
  | 'e'
  | 'f'
  | 'g'
  | 'h'
  | 'i'
  | 'j'
  | 'k'
  | 'l'
  | 'm'
  | 'n'
  | 'o'
  | 'p'
  | 'q'
  | 'r'
  | 's'
  | 't'
  | 'u'
  | 'v'
  | 'w'
  | 'x'
  | 'y'
  | 'z';
type SnakeChar = Lower | '_' | '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9';
type SnakeRest<S> = S extends '' ? true : S extends `${SnakeChar}${infer R}` ? SnakeRest<R> : false;
/** `K` itself when it is a snake_case word (`[a-z][a-z0-9_]*`), else `never`. */
type SnakeCase<K> = K extends `${Lower}${infer R}` ? (SnakeRest<R> extends true ? K : never) : never;
