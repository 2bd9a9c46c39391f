// The text a model reads for a tool result: the command's output first, then one status line.
// The whole result stays the structured value (MCP `structuredContent`); this is its reading.
import { isRecord } from './json';
import { jsonBytes } from './shape';
import type { ToolResult } from './tool';

/** Statuses of a result that went as asked; anything else is an error to an MCP client. */
const SUCCESS = new Set(['ok', 'executed', 'authored', 'batch']);

/**
 * True when a result is not a success: a failure to deliver, an unknown command, a refusal, a
 * command that failed or timed out, an answer withheld. A batch is an error when any call is.
 */
export function isErrorResult(result: ToolResult): boolean {
  const status = typeof result.status === 'string' ? result.status : '';
  if (!SUCCESS.has(status)) return true;
  if (status === 'executed') return !isRecord(result.outcome) || result.outcome.ok !== true;
  if (status === 'batch')
    return !Array.isArray(result.results) || result.results.some((r) => !isRecord(r) || isErrorResult(r));
  return false;
}

/**
 * The text a framework shows the model for a result. A call's result reads as the command's output
 * followed by one bracketed status line; a batch as one block per call, each headed by its status
 * line. Any other result (a listing, a Loom tool's answer) reads as its JSON.
 */
export function resultText(result: ToolResult): string {
  const status = result.status;
  if (status === 'batch' && Array.isArray(result.results)) {
    const calls = result.results.filter(isRecord);
    const blocks = calls.map((r, i) => {
      const { body, line } = callText(r);
      return `[${i + 1}/${calls.length} ${line}]${body === '' ? '' : `\n${body}`}`;
    });
    if (result.truncated === true) blocks.push(TRUNCATED_BATCH);
    return blocks.join('\n');
  }
  if (
    status === 'executed' ||
    status === 'unknown_command' ||
    status === 'failed_to_deliver' ||
    status === 'not_granted'
  ) {
    const { body, line } = callText(result);
    return body === '' ? `[${line}]` : `${body}\n[${line}]`;
  }
  return JSON.stringify(result);
}

const TRUNCATED_BATCH =
  '[some answers were left out to fit the output bound; run those calls alone or ask for less output]';

/** One call's output text and its status line (without brackets). */
function callText(r: Record<string, unknown>): { body: string; line: string } {
  const command = typeof r.command === 'string' ? r.command : '';
  const hint = typeof r.hint === 'string' ? ` ${r.hint}` : '';
  switch (r.status) {
    case 'executed':
      return executedText(r, command, hint);
    case 'unknown_command': {
      const near =
        Array.isArray(r.suggestions) && r.suggestions.length > 0
          ? `; nearest: ${r.suggestions.join(', ')}`
          : '';
      return { body: '', line: `${command}: unknown_command${near}.${hint}` };
    }
    case 'failed_to_deliver': {
      const message = typeof r.message === 'string' ? ` ${r.message}` : '';
      return {
        body: '',
        line: `${command ? `${command}: ` : ''}failed_to_deliver (${r.code}, landed: ${r.landed}).${message}${hint}`,
      };
    }
    case 'not_granted':
      return { body: '', line: `${command}: not_granted (${r.reasonCode ?? r.code}).${hint}` };
    default:
      return { body: '', line: JSON.stringify(r) };
  }
}

function executedText(
  r: Record<string, unknown>,
  command: string,
  hint: string,
): { body: string; line: string } {
  const outcome = isRecord(r.outcome) ? r.outcome : {};
  const entry = isRecord(r.entry) ? r.entry : {};
  const value = entry.value;
  const code = String(outcome.code ?? '');
  const parts: string[] = [code];
  if (typeof outcome.reason === 'string' && outcome.reason !== code) parts[0] = `${code} (${outcome.reason})`;
  let body = '';
  if (isRecord(value) && typeof value.exitCode === 'number') parts.push(`exit ${value.exitCode}`);
  if (isRecord(value) && value.timedOut === true) parts.push('timed out');
  if (isRecord(value) && value.outputExceeded === true) parts.push('output ceiling reached');
  if (outcome.mayHaveLanded === true && outcome.ok !== true) parts.push('may have landed');
  if (entry.status === 'withheld') {
    parts.push(`answer withheld (${entry.reasonCode}): its label passes this run's ceiling`);
  } else if (r.truncated === true) {
    parts.push(`output left out: ${outcome.bodyBytes} bytes do not fit the output bound; ask for less`);
  } else if (value !== undefined) {
    body = valueText(value);
    // Strings inside an answer are cut to a bound (marked …): say so, with the whole size.
    const shown = jsonBytes(value);
    if (typeof outcome.bodyBytes === 'number' && outcome.bodyBytes > shown)
      parts.push(`answer cut to fit (… marks each cut; ${outcome.bodyBytes} bytes in all)`);
  }
  if (typeof r.signature === 'string') parts.push(`expected ${r.signature}`);
  return { body, line: `${command}: ${parts.join(', ')}${hint}` };
}

/** A command's answer as text: a pack command's output (and stderr), or the answer's JSON. */
function valueText(value: unknown): string {
  if (!isRecord(value)) return typeof value === 'string' ? value : JSON.stringify(value);
  if ('output' in value || 'stdout' in value) {
    const out = outputText('output' in value ? value.output : value.stdout);
    const stderr = typeof value.stderr === 'string' ? value.stderr.replace(/\n$/, '') : '';
    const message =
      value.status !== 'ok' && typeof value.message === 'string' && out === '' && stderr === ''
        ? value.message
        : '';
    return [out, stderr === '' ? '' : `stderr:\n${stderr}`, message].filter((s) => s !== '').join('\n');
  }
  const keys = Object.keys(value);
  if (keys.length === 1 && typeof value.message === 'string') return value.message;
  if (
    typeof value.message === 'string' &&
    keys.every((k) => k === 'message' || value[k] === null || k === 'approval_id' || k === 'expires_at')
  )
    return value.message + (value.expires_at ? ` (expires ${value.expires_at})` : '');
  return JSON.stringify(value);
}

/** Text output as it was printed; parsed output (lines, JSON) as its JSON, so nothing is ambiguous. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output.replace(/\n$/, '');
  return output === undefined || output === null ? '' : JSON.stringify(output);
}
