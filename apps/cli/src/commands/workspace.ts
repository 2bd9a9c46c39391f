// `harness workspace pending|accept|reject`: a workspace edit that widens what agents may do waits
// for a person (docs/workspace-changes.md). The instance is chosen as `harness approvals` chooses
// it; the review, the decision and their records are the host's (`@harness/host/operator`).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { commandLine, DEFAULT_INSTANCE_DIR, instanceArgs, instanceLocation } from '@harness/config/instance';
import type { ReviewDiff, WorkspaceReview } from '@harness/host/operator';
import { parse } from '../args';
import { CliError } from '../errors';
import { err, out } from '../output';
import { projectFor, projectLine } from '../project';

const help = `Usage: harness workspace pending [--json] [--instance <dir>]
       harness workspace accept [--hash <hex>] [--by <name>] [--json] [--instance <dir>]
       harness workspace reject [--hash <hex>] [--by <name>] [--json] [--instance <dir>]

A running broker follows its workspace file. An edit that widens what an agent may do (a grant, a
command, a looser tier, a wider sandbox, a credential, a changed argv, …) is not served until a
person accepts it here: the broker keeps serving the workspace last accepted. An edit that widens
nothing applies at once. The instance is the one harness serve uses: --instance <dir>, else
$HARNESS_HOME, else the instance of the project it runs in (harness init's), else
${DEFAULT_INSTANCE_DIR}.

  pending         the workspace file beside the accepted one: its SHA-256 and what it widens and
                  narrows, or that nothing waits
  accept          accept the file as it is now; --hash <hex> (the first 12 or more hex digits that
                  pending shows) must match it, else nothing is accepted (it changed: review it
                  anew). Without --hash, on a terminal, the edit is shown and a yes is asked
  reject          write the accepted content back to the workspace file, and record the rejection
  --by <name>     who decided, as the audit records it (default person:$USER)
  --json          the review or the decision as JSON

Exit codes: 0 ok, 1 nothing to decide or the file changed, 2 usage, 3 no instance there.`;

/** Runs `harness workspace …`; returns the exit code. */
export async function workspaceCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    instance: { type: 'string' },
    json: { type: 'boolean' },
    hash: { type: 'string' },
    by: { type: 'string' },
  });
  const [sub, ...rest] = positionals;
  if (values.help || sub === undefined) {
    out(help);
    return sub === undefined && !values.help ? 2 : 0;
  }
  if (sub !== 'pending' && sub !== 'accept' && sub !== 'reject') {
    throw new CliError('usage', `unknown subcommand 'workspace ${sub}'; expected pending, accept or reject`);
  }
  if (rest.length > 0) throw new CliError('usage', `workspace ${sub} takes no arguments, found '${rest[0]}'`);
  if (sub === 'pending' && (values.hash !== undefined || values.by !== undefined)) {
    throw new CliError('usage', 'workspace pending takes no --hash and no --by');
  }
  const project = projectFor({ instance: values.instance });
  if (project !== undefined) err(projectLine(project));
  const { instanceDir, chosenBy } = instanceLocation({
    flag: values.instance,
    env: process.env,
    project: project?.instanceDir,
  });
  if (!existsSync(join(instanceDir, 'instance.json'))) {
    throw new CliError(
      'config',
      `no instance at ${instanceDir} (chosen by ${chosenBy}); pass --instance <dir> (or set HARNESS_HOME) to the instance harness serve uses`,
    );
  }
  const [host, operator] = await Promise.all([import('@harness/host'), import('@harness/host/operator')]);
  try {
    const review = await operator.reviewWorkspace(instanceDir);
    if (sub === 'pending') {
      if (values.json) out(JSON.stringify({ workspace: reviewJson(review) }));
      else out(reviewText(review, instanceDir));
      return review.state === 'invalid' ? 1 : 0;
    }
    const by = values.by ?? operator.personName();
    let hash = values.hash;
    if (sub === 'accept' && hash === undefined) {
      hash = await confirmed(review, instanceDir);
      if (hash === undefined) {
        out('nothing accepted');
        return 1;
      }
    }
    const decided =
      sub === 'accept'
        ? await operator.acceptWorkspace(instanceDir, { hash: hash as string, by })
        : await operator.rejectWorkspace(instanceDir, { hash, by });
    if (!decided.ok)
      throw new CliError(decided.code === 'hash_invalid' ? 'usage' : 'check_failed', decided.message);
    const r = decided.review;
    if (values.json) out(JSON.stringify({ [sub === 'accept' ? 'accepted' : 'rejected']: reviewJson(r) }));
    else if (sub === 'accept')
      out(
        `accepted ${r.file} (sha256 ${short(r.digest)}) as ${by}: ${r.diff.widenings.length} widening(s); a running broker serves it now, a broker started later loads it`,
      );
    else
      out(
        `rejected ${r.file} (sha256 ${short(r.digest)}) as ${by}: ${decided.restored ? `it holds the accepted content again (sha256 ${short(r.served)}), which the broker keeps serving` : 'no accepted content to write back'}`,
      );
    return 0;
  } catch (error) {
    if (error instanceof host.HostError || error instanceof host.StoreError) {
      throw new CliError('config', error.message, { cause: error });
    }
    throw error;
  }
}

const short = (digest: string): string => digest.slice(0, 12);

/** How a review reads in a terminal: what waits, what it widens (+) and narrows (−), and the commands. */
export function reviewText(review: WorkspaceReview, instanceDir: string): string {
  const where = instanceArgs(instanceDir);
  switch (review.state) {
    case 'accepted':
      return review.first
        ? `nothing waits for acceptance: no content was accepted for this instance yet, so its broker's next start accepts ${review.file} (sha256 ${short(review.digest)}) as it is`
        : `nothing waits for acceptance: ${review.file} (sha256 ${short(review.digest)}) is the accepted workspace`;
    case 'invalid':
      return `the workspace file does not load, so nothing is held and the accepted content is still served: ${review.message}`;
    case 'applies':
      return [
        `${review.file} (sha256 ${short(review.digest)}) differs from the accepted workspace (sha256 ${short(review.served)}) but widens nothing: a broker applies it without anyone's acceptance`,
        ...changes(review),
      ].join('\n');
    case 'pending':
      return [
        `${review.file} (sha256 ${short(review.digest)}) widens the accepted workspace (sha256 ${short(review.served)}); a broker keeps serving the accepted one until a person accepts this:`,
        ...(review.servedProblem === undefined
          ? []
          : [
              `(the accepted content no longer loads, ${review.servedProblem}; so everything the file gives is listed)`,
            ]),
        ...changes(review),
        `accept it: ${commandLine(['harness', 'workspace', 'accept', '--hash', short(review.digest), ...where])}`,
        `reject it (the accepted content is written back to the file): ${commandLine(['harness', 'workspace', 'reject', '--hash', short(review.digest), ...where])}`,
      ].join('\n');
  }
}

function changes(review: ReviewDiff<string>): string[] {
  return [
    ...review.diff.widenings.map((c) => `  + ${c.text}`),
    ...review.diff.narrowings.map((c) => `  - ${c.text}`),
  ];
}

/** A review as JSON: everything but the bytes. */
function reviewJson(review: WorkspaceReview): Record<string, unknown> {
  if (!('bytes' in review)) return { ...review };
  const { bytes: _bytes, ...rest } = review;
  return rest;
}

/** On a terminal: shows the edit and asks; the digest of what was shown when the answer is yes. */
async function confirmed(review: WorkspaceReview, instanceDir: string): Promise<string | undefined> {
  if (!process.stdin.isTTY) {
    throw new CliError(
      'usage',
      `workspace accept needs --hash <hex>: the first 12 hex digits harness workspace pending shows, so what is accepted is what was reviewed (${commandLine(['harness', 'workspace', 'pending', ...instanceArgs(instanceDir)])})`,
    );
  }
  out(reviewText(review, instanceDir));
  if (review.state !== 'pending' && review.state !== 'applies') return undefined;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(`accept sha256 ${short(review.digest)}? [y/N] `);
    return /^y(es)?$/i.test(answer.trim()) ? review.digest : undefined;
  } finally {
    rl.close();
  }
}
