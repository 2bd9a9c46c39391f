// One broker in its own process for the benchmarks (startBroker of the built package): one ready
// line on stdout, then serve until SIGTERM or SIGKILL.
// Usage: tsx bench/broker-main.ts <instance> <queue> <scope-json>
import { startBroker } from '@harness/host';

const [instanceDir, socketPath, scope] = process.argv.slice(2) as [string, string, string];
const broker = await startBroker({ instanceDir, socketPath, scope: JSON.parse(scope) });
process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid })}\n`);
process.on('SIGTERM', () => {
  void broker.close().then(() => process.exit(0));
});
