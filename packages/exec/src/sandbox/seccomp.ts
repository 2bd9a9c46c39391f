// The seccomp program bubblewrap installs for a confined run (`--seccomp <fd>`): a classic BPF filter
// over `struct seccomp_data`, assembled here rather than by libseccomp, which has no maintained Node
// binding. It refuses, with EPERM:
// - `socket(AF_UNIX, …)`: a confined program can open no Unix socket, by path or abstract, so it
//   can reach no broker, database or daemon on the machine through one (docs/security.md). Sockets
//   of other families (the run's own network namespace decides what they reach) and `socketpair`
//   (an unnamed pair that reaches nothing outside) stay allowed.
// - `io_uring_setup`, `io_uring_enter`, `io_uring_register`: io_uring's socket and connect
//   operations are not system calls, so a filter would never see them.
// - on x86_64, every x32 system call (their numbers carry bit 30; no distribution ships x32 programs).
// - for 32-bit programs on a 64-bit kernel, `socketcall` (whose arguments a filter cannot read) and
//   their own `socket(AF_UNIX)`; a system call of any other architecture is refused whole.

/** One instruction of a classic BPF program. */
export interface BpfInstruction {
  readonly code: number;
  readonly jt: number;
  readonly jf: number;
  readonly k: number;
}

// Opcodes (linux/bpf_common.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const JA = 0x05;
export const SECCOMP_RET_ALLOW = 0x7fff_0000;
export const SECCOMP_RET_ERRNO = 0x0005_0000;
export const EPERM = 1;
const AF_UNIX = 1;

// Offsets in struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
// The low 32 bits of args[0] (the filter runs on little-endian machines only: x86_64 and arm64).
const OFFSET_ARG0_LOW = 16;

/** The system calls the filter looks at, for one architecture (AUDIT_ARCH_* value). */
interface ArchCalls {
  readonly arch: number;
  readonly socket: number;
  readonly socketcall?: number;
  /** Numbers from here up are another ABI on the same architecture value (x32), refused whole. */
  readonly abiFloor?: number;
}

// io_uring_setup, io_uring_enter and io_uring_register share their numbers on every architecture.
const IO_URING = [425, 426, 427];

const ARCHES: Record<string, { native: ArchCalls; compat: ArchCalls }> = {
  x64: {
    native: { arch: 0xc000_003e, socket: 41, abiFloor: 0x4000_0000 },
    compat: { arch: 0x4000_0003, socket: 359, socketcall: 102 },
  },
  arm64: {
    native: { arch: 0xc000_00b7, socket: 198 },
    compat: { arch: 0x4000_0028, socket: 281 },
  },
};

/** Whether this machine's architecture has a filter (x86_64 and arm64 do). */
export function seccompSupported(arch: string = process.arch): boolean {
  return arch in ARCHES;
}

type Target = 'allow' | 'deny' | `label:${string}`;
type Step =
  | { op: 'load'; offset: number }
  | { op: 'jeq' | 'jge'; k: number; ifTrue: Target; ifFalse?: Target }
  | { op: 'ja'; to: Target }
  | { op: 'ret'; value: 'allow' | 'deny' }
  | { op: 'label'; name: string };

/** Resolves labels into the forward jump offsets classic BPF takes (each at most 255). */
function assemble(steps: readonly Step[]): BpfInstruction[] {
  const real = steps.filter((s) => s.op !== 'label');
  const indexOf = new Map<string, number>();
  let i = 0;
  for (const s of steps) {
    if (s.op === 'label') indexOf.set(s.name, i);
    else i += 1;
  }
  const allowAt = real.findIndex((s) => s.op === 'ret' && s.value === 'allow');
  const denyAt = real.findIndex((s) => s.op === 'ret' && s.value === 'deny');
  const where = (target: Target): number => {
    if (target === 'allow') return allowAt;
    if (target === 'deny') return denyAt;
    const at = indexOf.get(target.slice('label:'.length));
    if (at === undefined) throw new Error(`seccomp: no label ${target}`);
    return at;
  };
  return real.map((s, at) => {
    if (s.op === 'load') return { code: LD_W_ABS, jt: 0, jf: 0, k: s.offset };
    if (s.op === 'ret') {
      return {
        code: RET_K,
        jt: 0,
        jf: 0,
        k: s.value === 'allow' ? SECCOMP_RET_ALLOW : SECCOMP_RET_ERRNO | EPERM,
      };
    }
    const jump = (target: Target | undefined): number => {
      if (target === undefined) return 0;
      const offset = where(target) - at - 1;
      if (offset < 0 || offset > 255) throw new Error(`seccomp: jump to ${target} out of range`);
      return offset;
    };
    if (s.op === 'ja') return { code: JA, jt: 0, jf: 0, k: jump(s.to) };
    return { code: s.op === 'jeq' ? JEQ_K : JGE_K, jt: jump(s.ifTrue), jf: jump(s.ifFalse), k: s.k };
  });
}

function archSteps(name: string, calls: ArchCalls, unixSockets: boolean): Step[] {
  const steps: Step[] = [
    { op: 'label', name },
    { op: 'load', offset: OFFSET_NR },
  ];
  if (calls.abiFloor !== undefined) steps.push({ op: 'jge', k: calls.abiFloor, ifTrue: 'deny' });
  for (const nr of IO_URING) steps.push({ op: 'jeq', k: nr, ifTrue: 'deny' });
  if (calls.socketcall !== undefined) steps.push({ op: 'jeq', k: calls.socketcall, ifTrue: 'deny' });
  if (unixSockets) return [...steps, { op: 'ja', to: 'allow' }];
  return [
    ...steps,
    { op: 'jeq', k: calls.socket, ifTrue: `label:${name}-socket`, ifFalse: 'allow' },
    { op: 'label', name: `${name}-socket` },
    { op: 'load', offset: OFFSET_ARG0_LOW },
    { op: 'jeq', k: AF_UNIX, ifTrue: 'deny', ifFalse: 'allow' },
  ];
}

/**
 * The filter for this machine's architecture, or `undefined` where there is none. With
 * `unixSockets` (a pack's `unix_sockets` allow-list is in force: a filter cannot read the path a
 * socket connects to) `socket(AF_UNIX)` is allowed and the rest still refused.
 */
export function seccompFilter(
  options: { unixSockets?: boolean; arch?: string } = {},
): BpfInstruction[] | undefined {
  const arches = ARCHES[options.arch ?? process.arch];
  if (arches === undefined) return undefined;
  const unix = options.unixSockets === true;
  return assemble([
    { op: 'load', offset: OFFSET_ARCH },
    { op: 'jeq', k: arches.native.arch, ifTrue: 'label:native' },
    { op: 'jeq', k: arches.compat.arch, ifTrue: 'label:compat', ifFalse: 'deny' },
    ...archSteps('native', arches.native, unix),
    ...archSteps('compat', arches.compat, unix),
    { op: 'ret', value: 'allow' },
    { op: 'ret', value: 'deny' },
  ]);
}

/** The program as the kernel reads it: 8 bytes an instruction, in this machine's byte order. */
export function encodeFilter(program: readonly BpfInstruction[]): Buffer {
  const out = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    out.writeUInt16LE(ins.code, i * 8);
    out.writeUInt8(ins.jt, i * 8 + 2);
    out.writeUInt8(ins.jf, i * 8 + 3);
    out.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return out;
}
