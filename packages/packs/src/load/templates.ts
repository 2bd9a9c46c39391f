// The template checks of the workspace file: each command's argv against its declared inputs, and
// each pack's env against its declared credentials. They read only their own entry, so they run on a
// schema-valid file and on the well-formed entries of a file the schema rejects.

import type { DetailsOf } from '@harness/errors';
import { defineContext, parse as parseTemplate, type TemplateRef } from '@harness/tmpl';
import {
  PacksErrorCode as Code,
  type PacksErrorCode,
  type PacksIssue,
  type PacksIssueDetails,
} from '../errors';
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
      for (const ti of t.issues) {
        issues.push(
          issueInside(ctx, Code.template, at, ti.offset, ti.message, {
            reason: ti.code,
            ...(ti.path === undefined ? {} : { placeholder: ti.path }),
          }),
        );
      }
      return;
    }
    for (const ref of t.template.refs()) {
      const push = <C extends PacksErrorCode>(
        code: C,
        message: string,
        details: DetailsOf<PacksIssueDetails, C>,
      ) => issues.push(issueInside(ctx, code, at, ref.offset, message, details));
      if (ref.path === 'credential' || ref.path.startsWith('credential.')) {
        push(
          Code.credential_in_argv,
          `{{${ref.path}}} puts a credential in argv, where ps and audit logs can read it; expected credentials in the pack's env only (env: { TOKEN: '{{${ref.path}}}' })`,
          { placeholder: ref.path },
        );
        continue;
      }
      if (ref.form === 'untrusted') {
        push(
          Code.template,
          `{{untrusted ${ref.path}}} is not allowed in argv; expected {{name}} or {{name?}}`,
          {
            reason: 'untrusted_in_argv',
            placeholder: ref.path,
          },
        );
        continue;
      }
      if (ai === 0) {
        push(
          Code.template,
          `argv[0] names the executable and must be literal; found the placeholder {{${ref.path}}}`,
          { reason: 'placeholder_in_executable', placeholder: ref.path },
        );
        continue;
      }
      const dotted = ref.path.includes('.');
      if (dotted || (declared !== undefined && !declared.includes(ref.path))) {
        push(
          Code.input_mismatch,
          dotted
            ? `placeholder {{${ref.path}}} names no input (an input name has no dots); expected {{name}}, e.g. {{${ref.path.split('.').at(-1)}}}, with that name under inputs`
            : `placeholder {{${ref.path}}} names no declared input; ${declared?.length ? `expected one of ${listForMessage(declared)}, or declare it` : 'declare it'}: inputs: { ${ref.path}: { type: string } }`,
          { input: ref.path, reason: dotted ? 'dotted' : 'undeclared', expected: declared ?? [] },
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
          Code.input_mismatch,
          [...cPath, 'inputs', name],
          `input name "credential" is reserved; expected another name`,
          { input: name, reason: 'reserved', expected: declared ?? [] },
          true,
        ),
      );
    }
    if (!used.has(name)) {
      issues.push(
        issue(
          Code.input_mismatch,
          [...cPath, 'inputs', name],
          `input "${name}" is used by no argv placeholder; expected {{${name}}} in argv, or remove the input`,
          { input: name, reason: 'unused', expected: declared ?? [] },
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
 * credential in `credentials` (the pack's `credentials_ref`). `packId` is the pack's id, `undefined`
 * when the file's id is not a string (messages then say "this pack"). The
 * one copy of these checks, used by the pack builder on a schema-valid file and by
 * {@link checkWellFormedEntries} on a file the schema rejects.
 */
export function checkPackEnv(
  env: Readonly<Record<string, string>>,
  credentials: readonly string[],
  packId: string | undefined,
  pPath: Path,
  ctx: CheckContext,
  issues: PacksIssue[],
): void {
  const pack = packId === undefined ? 'this pack' : `pack "${packId}"`;
  for (const [name, value] of Object.entries(env)) {
    const at: Path = [...pPath, 'env', name];
    const t = parseTemplate(value, { location: 'env', context: CREDENTIAL_CONTEXT });
    if (!t.ok) {
      for (const ti of t.issues) {
        issues.push(
          issueInside(
            ctx,
            Code.template,
            at,
            ti.offset,
            `env may reference only {{credential.NAME}}; ${ti.message}`,
            { reason: ti.code, ...(ti.path === undefined ? {} : { placeholder: ti.path }) },
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
            Code.unknown_credential,
            at,
            ref.offset,
            `{{${ref.path}}} names a credential ${pack} does not declare; ${credentials.length > 0 ? `expected one of credentials_ref: ${listForMessage(credentials)}, or add it` : 'declare it'}: credentials_ref: [${[...credentials, cred].join(', ')}]`,
            {
              credential: cred,
              ...(packId === undefined ? {} : { pack: packId }),
              reason: 'undeclared',
              expected: credentials,
            },
          ),
        );
      }
    }
  }
}
