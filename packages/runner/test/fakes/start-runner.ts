// Starts a real runner process for the restart test: `tsx start-runner.ts <runner file> <instance>`;
// prints the receiver URL on one line, then runs until killed.
import { loadRunnerConfig } from '../../src/load';
import { Supervisor } from '../../src/supervisor';

const [file, instanceDir] = process.argv.slice(2) as [string, string];
const loaded = loadRunnerConfig({ file });
if (!loaded.ok) throw new Error(loaded.issues.map((i) => i.message).join('\n'));
const supervisor = new Supervisor(loaded.config, { instanceDir, log: () => undefined });
const { url } = await supervisor.start();
process.stdout.write(`${url}\n`);
