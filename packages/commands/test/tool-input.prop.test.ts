// The reading of run_command's input over any JSON value: it never throws, and every value reads as
// calls to deliver or as one message saying why nothing is sent.
import { fcRuns } from '@harness/test-utils';
import { fc, test } from '@harness/test-utils/property';
import { describe, expect } from 'vitest';
import { readCalls } from '../src/call-input';

describe('run_command input over any JSON value', () => {
  test.prop([fc.jsonValue()], { numRuns: fcRuns(300) })(
    'never throws, and reads as calls or as one message',
    (input) => {
      const read = readCalls(input);
      expect(read.ok ? read.calls.length : read.message.length).toBeGreaterThan(0);
    },
  );
});
