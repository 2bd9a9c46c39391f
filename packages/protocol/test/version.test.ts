import { describe, expect, it } from 'vitest';
import { BROKER_PROTOCOL, protocolMismatch } from '../src/index';

describe('the compatibility rule', () => {
  it('admits exactly its own protocol name', () => {
    expect(BROKER_PROTOCOL).toBe('loom-broker/2');
    expect(protocolMismatch('loom-broker/2', 'the broker')).toBeUndefined();
  });

  it('refuses an older or a newer version by name', () => {
    expect(protocolMismatch('loom-broker/0', 'the request')).toMatchInlineSnapshot(
      `"the request speaks loom-broker/0; this side speaks loom-broker/2. Use a client and a broker of the same protocol version."`,
    );
    expect(protocolMismatch('loom-broker/1', 'the broker')).toContain('the broker speaks loom-broker/1');
  });

  it('refuses a peer that names no protocol', () => {
    expect(protocolMismatch(undefined, 'the broker')).toContain('the broker speaks no protocol');
    expect(protocolMismatch(1, 'the broker')).toContain('speaks no protocol');
  });
});
