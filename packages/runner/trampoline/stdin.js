// The stdin-delivery trampoline (seed 004, "stdin delivery moves the controlling terminal to fd 1").
// The runner starts this script inside a new PTY session: it is the session leader and the PTY is its
// controlling terminal on fds 0, 1 and 2. It then starts the harness's program in the same session
// with fd 0 a pipe and fds 1 and 2 the PTY, and copies the prompt into that pipe from the runner's
// private Unix socket, byte for byte (never through the PTY's line discipline, which would echo it,
// cap a line near 4 KiB and turn ^C/^D/^Z into signals). Node cannot dup2 and exec, hence this hop.
//
// argv: node stdin.js <socket path> <program> [args...]. The program is found on the PATH of the
// environment this script was given; no shell is involved.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';

const [socketPath, program, ...args] = process.argv.slice(2);
const child = spawn(program, args, { stdio: ['pipe', 'inherit', 'inherit'] });
// A program that exits without reading its whole prompt closes the pipe early: that write error is
// not a run failure (the program's exit status decides), so it is only reported when debugging.
child.stdin.on('error', (error) => {
  if (process.env.HARNESS_TRAMPOLINE_DEBUG === '1') process.stderr.write(`stdin: ${error.code}\n`);
});
const socket = connect(socketPath);
socket.on('error', () => child.stdin.end());
socket.pipe(child.stdin);
child.on('error', (error) => {
  process.stderr.write(`cannot start ${program}: ${error.code}\n`);
  process.exit(127);
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  socket.destroy();
  if (signal !== null) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
