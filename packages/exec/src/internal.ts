// @harness/exec/internal: what other packages of this repository share with exec but an embedder
// does not need. Unstable: any release may change or remove a name here without notice (docs/exec.md,
// "Internals"). Import it only from a package of this repository.

export { groupAlive } from './group';
export { procStatFields } from './proc';
export { hashProgram, programHashReads } from './program';
export { FALLBACK_PATH } from './resolve';
// A long-lived confined process (an MCP server @harness/servers keeps running) is started by its
// owner, not by run(): it needs the plan itself, the argv and the seccomp program for fd 3.
export { planSandbox, type SandboxLaunch, SECCOMP_FD } from './sandbox/plan';
