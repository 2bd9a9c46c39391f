// Choosing the host client a configuration asks for.
import type { HostConfig } from '../config';
import { createCliHostClient } from './cli-client';
import { createSocketHostClient } from './socket-client';
import type { HostClient } from './types';

/**
 * The host client a configuration asks for: the CLI (the seed's path, and the default for any
 * host) or, when `transport.client` is `"socket"`, the broker's socket protocol (the fast path).
 */
export function createHostClient(config: HostConfig): HostClient {
  if (config.transport.kind === 'broker' && config.transport.client === 'socket') {
    return createSocketHostClient({
      socketPath: config.transport.socketPath,
      ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
    });
  }
  return createCliHostClient(config);
}
