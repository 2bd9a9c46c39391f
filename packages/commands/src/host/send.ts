// Sending one command call through a host client, for the tools that start a call.
import type { CallOptions, CallRequest, HostClient, SendOutcome } from './types';

/**
 * Sends one call with the turn's job id, cancel signal and what else the caller passes (read-only,
 * the session, a stop signal, the command's timeout, a progress observer). A client is not supposed
 * to throw; if one does, nobody can say whether the request went out, so the outcome reads as `lost`.
 */
export async function sendRun(
  client: HostClient,
  req: CallRequest,
  ctx: Pick<CallOptions, 'jobId' | 'signal'>,
  extra: Omit<CallOptions, 'jobId' | 'signal'> = {},
): Promise<SendOutcome> {
  try {
    return await client.run(req, {
      jobId: ctx.jobId,
      signal: ctx.signal,
      ...(extra.readOnly === undefined ? {} : { readOnly: extra.readOnly }),
      ...(extra.session === undefined ? {} : { session: extra.session }),
      ...(extra.stop === undefined ? {} : { stop: extra.stop }),
      ...(extra.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: extra.commandTimeoutMs }),
      ...(extra.onProgress === undefined ? {} : { onProgress: extra.onProgress }),
    });
  } catch {
    return { kind: 'lost' };
  }
}
