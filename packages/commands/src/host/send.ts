// Sending one command call through a host client, for the tools that start a call.
import type { CallOptions, HostClient, RunRequest, SendOutcome } from './types';

/**
 * Sends one call with the turn's job id and cancel signal. A client is not supposed to throw; if
 * one does, nobody can say whether the request went out, so the outcome reads as `lost`.
 */
export async function sendRun(client: HostClient, req: RunRequest, ctx: CallOptions): Promise<SendOutcome> {
  try {
    return await client.run(req, { jobId: ctx.jobId, signal: ctx.signal });
  } catch {
    return { kind: 'lost' };
  }
}
