import { readFileSync } from 'node:fs';
import { release } from 'node:os';
import { getSystemErrorMap, getSystemErrorName } from 'node:util';
import { FdDuplicationError } from './errors.js';
import { addonFunction } from './native.js';

/** What the native call gives back: the new descriptor, or the system call that failed and its errno. */
type NativeResult = number | { readonly syscall: string; readonly errno: number };

/** Yama's ptrace rule, as the message explains it; undefined where Yama is not active. */
function ptraceScope(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/yama/ptrace_scope', 'utf8').trim();
  } catch {
    return undefined;
  }
}

function permissionAdvice(pid: number): string {
  const scope = ptraceScope();
  const rules =
    scope === undefined
      ? 'Yama is not active here (no /proc/sys/kernel/yama/ptrace_scope), so the same user is enough'
      : `/proc/sys/kernel/yama/ptrace_scope is ${scope}: 0 allows any process of the same user, 1 only an ancestor of process ${pid} ` +
        `(a parent may take the descriptors of its children) or a process that ${pid} named with prctl(PR_SET_PTRACER), 2 only a process with CAP_SYS_PTRACE, 3 none`;
  return (
    `taking another process's descriptor needs ptrace access to it: both processes must run as the same user (root, with CAP_SYS_PTRACE, may take any); ` +
    `${rules}. A seccomp filter (a container's default profile) may refuse pidfd_getfd too`
  );
}

function advice(syscall: string, code: string, pid: number, fd: number): string {
  if (process.platform !== 'linux') return `pidfd_getfd is Linux's (kernel 5.6 or later); this is ${process.platform}`;
  switch (code) {
    case 'ENOSYS':
      return `this kernel (${release()}) has no ${syscall}: Linux 5.6 or later is needed, or a seccomp filter refuses the call`;
    case 'ESRCH':
      return `there is no process ${pid}: the exporting process must stay alive, and keep the descriptor open, until the importer has its copy`;
    case 'EPERM':
    case 'EACCES':
      return permissionAdvice(pid);
    case 'EBADF':
      return `process ${pid} has no open descriptor ${fd}: it closed it (closing the exporting resource does), or the handle came from another process`;
    case 'EMFILE':
    case 'ENFILE':
      return 'no file descriptor is left (the limit of this process or of the system)';
    default:
      return `${syscall} refused pid ${pid}, fd ${fd}`;
  }
}

/**
 * This process's own copy of file descriptor `fd` of process `pid`, through
 * Linux's `pidfd_open` and `pidfd_getfd` (kernel 5.6 or later): how a
 * shareable handle of type `CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR`
 * (`cuMemPoolExportToShareableHandle`) reaches another process without a Unix
 * socket. The copy is close-on-exec; close it (`fs.closeSync`) once it has
 * been used. Taking a descriptor of one's own process is a plain duplicate.
 *
 * `pid` must be an integer from 1 and `fd` from 0, each within 32 bits (a
 * `TypeError` for non-numbers, a `RangeError` otherwise, before any system
 * call). A failed call is a {@link FdDuplicationError} with errno's name and
 * what to check: the same user, ptrace permission
 * (`/proc/sys/kernel/yama/ptrace_scope`: a process can always take the
 * descriptors of its own children, root any), whether the process is alive
 * and still has the descriptor open.
 */
export function duplicateFdFromProcess(pid: number, fd: number): number {
  const result = addonFunction<(pid: number, fd: number) => NativeResult>('duplicateFdFromProcess')(pid, fd);
  if (typeof result === 'number') return result;
  const code = getSystemErrorName(-result.errno);
  const text = getSystemErrorMap().get(-result.errno)?.[1] ?? `errno ${result.errno}`;
  const message = `duplicateFdFromProcess: ${result.syscall} for descriptor ${fd} of process ${pid} failed with ${code} (${text}): ${advice(result.syscall, code, pid, fd)}`;
  throw new FdDuplicationError(pid, fd, result.syscall, result.errno, code, message);
}
