// What a command that receives a credential may reveal of it. Redaction removes a credential's
// literal value from output; a command that computes on it (`$ENV.TOKEN|@base64` in a jq filter,
// a reversed or split string) prints it in a form no redaction matches. So the output of such a
// command carries a confidentiality atom per credential (a run whose ceiling does not admit it gets
// the answer withheld), unless its pack declares otherwise, loudly; and these load-time warnings
// name the commands where a caller's value reaches the program as code (docs/packs.md,
// "Credentials in output").
import { type Atom, credentialAtom } from '@harness/ifc';
import { parse as parseTemplate } from '@harness/tmpl';
import type { Label } from './types';

/** One warning, at a path relative to the command entry (`['argv', 3]`, `['inputs', 'x']`). */
export interface CredentialFlowWarning {
  readonly at: readonly (string | number)[];
  /** The input that reaches the program as code; absent for the `credential_output_unlabeled` warning. */
  readonly input?: string;
  readonly message: string;
}

/** The pack's env templates and the parts of a command entry these checks read (as written). */
export interface CredentialFlowSource {
  readonly argv: readonly string[];
  readonly inputs?: Readonly<Record<string, { readonly code?: boolean | undefined }>> | undefined;
  readonly credential_output_unlabeled?: string | undefined;
}

/** The credentials a pack's env hands its commands' processes, sorted, each once. */
export function credentialsReceived(env: Readonly<Record<string, string>>): string[] {
  const names = new Set<string>();
  for (const value of Object.values(env)) {
    const t = parseTemplate(value, { location: 'env' });
    if (!t.ok) continue;
    for (const ref of t.template.refs()) {
      if (ref.path.startsWith('credential.')) names.add(ref.path.slice('credential.'.length));
    }
  }
  return [...names].sort();
}

/**
 * The label of a command's answers: the declared one (command, else pack), with one clause per
 * credential it receives, unless the command declares `credential_output_unlabeled`.
 */
export function labelWithCredentials(
  declared: Label | undefined,
  received: readonly string[],
  unlabeled: string | undefined,
): Label | undefined {
  if (received.length === 0 || unlabeled !== undefined) return declared;
  const atoms: Atom[] = received.map(credentialAtom);
  return {
    confidentiality: [...(declared?.confidentiality ?? []), ...atoms],
    integrity: [...(declared?.integrity ?? [])],
  };
}

// Interpreters and the flags whose next argv element is a program for them.
const CODE_FLAGS: Readonly<Record<string, readonly string[]>> = {
  sh: ['-c'],
  bash: ['-c'],
  dash: ['-c'],
  zsh: ['-c'],
  ksh: ['-c'],
  node: ['-e', '--eval', '-p', '--print'],
  deno: ['eval'],
  bun: ['-e', '--eval', '-p', '--print'],
  python: ['-c'],
  python3: ['-c'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  php: ['-r'],
  osascript: ['-e'],
  sed: ['-e', '--expression'],
};

// Options of the filter programs that take the next element(s) as their value, not as an operand.
const OPTION_VALUES: Readonly<Record<string, number>> = {
  '--arg': 2,
  '--argjson': 2,
  '--slurpfile': 2,
  '--rawfile': 2,
  '--indent': 1,
  '-L': 1,
  '-v': 1,
  '-F': 1,
};

// Programs whose first operand is a program in their own language.
const FILTER_PROGRAMS = new Set(['jq', 'gojq', 'jaq', 'yq', 'awk', 'gawk', 'mawk', 'nawk', 'sed']);

const programOf = (argv: readonly string[]): string => (argv[0] ?? '').split('/').pop() ?? '';

/** The input an argv element is, when the element is exactly one placeholder. */
function wholeInput(element: string): string | undefined {
  const t = parseTemplate(element);
  if (!t.ok) return undefined;
  const refs = t.template.refs();
  const only = refs[0];
  return refs.length === 1 && only !== undefined && only.offset === 0 && `{{${only.path}}}` === element
    ? only.path
    : undefined;
}

/**
 * Inputs whose value reaches the program as code, and why: declared `code: true`; a whole argv
 * element right after an interpreter's code flag (`sh -c`, `node -e`, `python -c`, `perl -e`…); or
 * a whole element that is the first operand of a filter program (`jq`, `yq`, `awk`, `sed`…).
 */
export function codeInputs(command: CredentialFlowSource): Map<string, string> {
  const found = new Map<string, string>();
  for (const [name, schema] of Object.entries(command.inputs ?? {})) {
    if (schema.code === true) found.set(name, 'it is declared code: true');
  }
  const program = programOf(command.argv);
  const flags = CODE_FLAGS[program];
  let operandSeen = false;
  let skip = 0;
  command.argv.forEach((element, i) => {
    if (i === 0) return;
    const input = wholeInput(element);
    const previous = command.argv[i - 1] ?? '';
    if (input !== undefined && flags?.includes(previous) && !found.has(input)) {
      found.set(input, `${program} runs the element after ${previous} as a program`);
    }
    if (!FILTER_PROGRAMS.has(program) || operandSeen) return;
    if (skip > 0) {
      skip--;
      return;
    }
    if (element.startsWith('-')) {
      skip = OPTION_VALUES[element] ?? 0;
      return;
    }
    operandSeen = true;
    if (input !== undefined && !found.has(input)) {
      found.set(input, `${program} reads its first operand as a program (a filter or script)`);
    }
  });
  return found;
}

/**
 * Warnings for one command of a pack whose env hands it `received` credentials: the opt-out
 * `credential_output_unlabeled`, and every input that reaches the program as code.
 */
export function credentialFlowWarnings(
  command: CredentialFlowSource,
  received: readonly string[],
): CredentialFlowWarning[] {
  if (received.length === 0) return [];
  const warnings: CredentialFlowWarning[] = [];
  const creds = received.join(', ');
  const atoms = received.map((r) => credentialAtom(r)).join(', ');
  const unlabeled = command.credential_output_unlabeled;
  if (unlabeled !== undefined) {
    warnings.push({
      at: ['credential_output_unlabeled'],
      message: `this command receives credential ${creds}, and its output is NOT labelled ${atoms} (${JSON.stringify(unlabeled)}): a run whose ceiling does not admit the credential still sees everything it prints; redaction removes only the literal value`,
    });
  }
  for (const [input, why] of codeInputs(command)) {
    warnings.push({
      at: ['inputs', input],
      input,
      message: `input "${input}" reaches the program as code (${why}) in a command that receives credential ${creds}: a caller can compute on the credential ($ENV.TOKEN|@base64, a reversal, a split) and print it in a form redaction does not match; ${unlabeled === undefined ? `its output carries ${atoms}, so only a run whose ceiling admits that sees it` : 'its output is unlabelled, so any run sees it'}. Give the program text a fixed value, or the credential to another pack`,
    });
  }
  return warnings;
}
