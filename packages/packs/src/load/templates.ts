// The template checks of the workspace file: each command's argv against its declared inputs, and
// each pack's env against its declared credentials. They read only their own entry, so they run on a
// schema-valid file and on the well-formed entries of a file the schema rejects.
import { defineContext, parse as parseTemplate, type TemplateRef } from '@harness/tmpl';
import { PacksErrorCode as Code, type PacksErrorCode, type PacksIssue } from '../errors';
import { listForMessage } from '../lookup';
import { issueInside } from './issues';
import type { CheckContext, Path } from './types';

/** The parts of a command entry its template checks read. */
interface CommandTemplates {
  readonly argv: readonly string[];
  readonly inputs?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The argv template and input checks of one command: pushes its issues and returns the placeholders
 * that name an input. The one copy of these checks, used by the pack builder on a schema-valid file and by
 * {@link checkWellFormedEntries} on a file the schema rejects.
 */
export function checkCommandTemplates(
  rc: CommandTemplates,
  cPath: Path,
  ctx: CheckContext,
  issues: PacksIssue[],
): TemplateRef[] {
  const { issue } = ctx;
  const refs: TemplateRef[] = [];
  const declared = rc.inputs ? Object.keys(rc.inputs) : undefined;
  rc.argv.forEach((element, ai) => {
    const at: Path = [...cPath, 'argv', ai];
    const t = parseTemplate(element);
    if (!t.ok) {
      for (const ti of t.issues) issues.push(issueInside(ctx, Code.TEMPLATE, at, ti.offset, ti.message));
      return;
    }
    for (const ref of t.template.refs()) {
      const push = (code: PacksErrorCode, message: string) =>
        issues.push(issueInside(ctx, code, at, ref.offset, message));
      if (ref.path === 'credential' || ref.path.startsWith('credential.')) {
        push(
          Code.CREDENTIAL_IN_ARGV,
          `{{${ref.path}}} puts a credential in argv, where ps and audit logs can read it; expected credentials in the pack's env only (env: { TOKEN: '{{${ref.path}}}' })`,
        );
        continue;
      }
      if (ref.form === 'untrusted') {
        push(
          Code.TEMPLATE,
          `{{untrusted ${ref.path}}} is not allowed in argv; expected {{name}} or {{name?}}`,
        );
        continue;
      }
      if (ai === 0) {
        push(
          Code.TEMPLATE,
          `argv[0] names the executable and must be literal; found the placeholder {{${ref.path}}}`,
        );
        continue;
      }
      if (ref.path.includes('.') || (declared !== undefined && !declared.includes(ref.path))) {
        push(
          Code.INPUT_MISMATCH,
          ref.path.includes('.')
            ? `placeholder {{${ref.path}}} names no input (an input name has no dots); expected {{name}}, e.g. {{${ref.path.split('.').at(-1)}}}, with that name under inputs`
            : `placeholder {{${ref.path}}} names no declared input; ${declared?.length ? `expected one of ${listForMessage(declared)}, or declare it` : 'declare it'}: inputs: { ${ref.path}: { type: string } }`,
        );
        continue;
      }
      refs.push(ref);
    }
  });
  const used = new Set(refs.map((r) => r.path));
  for (const name of declared ?? []) {
    if (name === 'credential') {
      issues.push(
        issue(
          Code.INPUT_MISMATCH,
          [...cPath, 'inputs', name],
          `input name "credential" is reserved; expected another name`,
          true,
        ),
      );
    }
    if (!used.has(name)) {
      issues.push(
        issue(
          Code.INPUT_MISMATCH,
          [...cPath, 'inputs', name],
          `input "${name}" is used by no argv placeholder; expected {{${name}}} in argv, or remove the input`,
          true,
        ),
      );
    }
  }
  return refs;
}

const CREDENTIAL_CONTEXT = defineContext([{ path: 'credential.*', locations: ['env'] }]);

/**
 * The env template checks of one pack: a value may reference only `{{credential.NAME}}`, and only a
 * credential in `credentials` (the pack's `credentials_ref`). `pack` names the pack in messages. The
 * one copy of these checks, used by the pack builder on a schema-valid file and by
 * {@link checkWellFormedEntries} on a file the schema rejects.
 */
export function checkPackEnv(
  env: Readonly<Record<string, string>>,
  credentials: readonly string[],
  pack: string,
  pPath: Path,
  ctx: CheckContext,
  issues: PacksIssue[],
): void {
  for (const [name, value] of Object.entries(env)) {
    const at: Path = [...pPath, 'env', name];
    const t = parseTemplate(value, { location: 'env', context: CREDENTIAL_CONTEXT });
    if (!t.ok) {
      for (const ti of t.issues) {
        issues.push(
          issueInside(
            ctx,
            Code.TEMPLATE,
            at,
            ti.offset,
            `env may reference only {{credential.NAME}}; ${ti.message}`,
          ),
        );
      }
      continue;
    }
    for (const ref of t.template.refs()) {
      const cred = ref.path.slice('credential.'.length);
      if (!credentials.includes(cred)) {
        issues.push(
          issueInside(
            ctx,
            Code.UNKNOWN_CREDENTIAL,
            at,
            ref.offset,
            `{{${ref.path}}} names a credential ${pack} does not declare; ${credentials.length > 0 ? `expected one of credentials_ref: ${listForMessage(credentials)}, or add it` : 'declare it'}: credentials_ref: [${[...credentials, cred].join(', ')}]`,
          ),
        );
      }
    }
  }
}
