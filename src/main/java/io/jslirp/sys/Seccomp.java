package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.syscall;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;

/**
 * slirp4netns's --enable-seccomp for a JVM: a seccomp filter, on every thread of the process
 * (TSYNC) and every thread it starts later, that refuses the system calls slirp4netns blocks
 * (execve, execveat, ptrace, process_vm_readv/writev, prctl, mount, umount2, setns, unshare,
 * name_to_handle_at, open_by_handle_at). slirp4netns kills itself on them; here they fail with
 * EPERM instead, because the JVM itself calls prctl (to name each thread it starts, e.g. a new
 * JIT compiler thread) and must survive that. Everything else is allowed, as with slirp4netns. A
 * system call made through another architecture's ABI (x32 on x86-64) is refused too, so it cannot
 * bypass the list.
 */
public final class Seccomp {
    private Seccomp() {}

    private static final int PR_SET_NO_NEW_PRIVS = 38;
    private static final int SECCOMP_SET_MODE_FILTER = 1, SECCOMP_FILTER_FLAG_TSYNC = 1;
    private static final int RET_KILL_PROCESS = 0x80000000, RET_ERRNO = 0x00050000, RET_ALLOW = 0x7fff0000;
    private static final int AUDIT_ARCH_X86_64 = 0xc000003e, AUDIT_ARCH_AARCH64 = 0xc00000b7;
    /** x32 system calls on x86-64 carry this bit in their number. */
    private static final int X32_SYSCALL_BIT = 0x40000000;
    private static final short LD_W_ABS = 0x20, JEQ_K = 0x15, JGE_K = 0x35, RET_K = 0x06;
    /** Offsets in struct seccomp_data. */
    private static final int DATA_NR = 0, DATA_ARCH = 4;

    /** The blocked calls: execve, execveat, ptrace, process_vm_readv, process_vm_writev, prctl, mount, umount2, setns, unshare, name_to_handle_at, open_by_handle_at. */
    private static final int[] BLOCKED_X86_64 = {59, 322, 101, 310, 311, 157, 165, 166, 308, 272, 303, 304};
    private static final int[] BLOCKED_AARCH64 = {221, 281, 117, 270, 271, 167, 40, 39, 268, 97, 264, 265};
    /**
     * Also refused once a running instance has isolated itself ({@link #installForIsolation}): what
     * would change or leave its root (pivot_root, chroot, the new mount API: open_tree, move_mount,
     * fsopen, fsconfig, fsmount, fspick, mount_setattr) and what reaches the kernel's rarer, riskier
     * parts (bpf, perf_event_open, userfaultfd, kexec_load, kexec_file_load, init_module,
     * finit_module, delete_module, add_key, request_key, keyctl). A JVM makes none of them.
     */
    private static final int[] ISOLATION_X86_64 = {155, 161, 428, 429, 430, 431, 432, 433, 442, 321, 298, 323, 246, 320, 175, 313, 176, 248, 249, 250};
    private static final int[] ISOLATION_AARCH64 = {41, 51, 428, 429, 430, 431, 432, 433, 442, 280, 241, 282, 104, 294, 105, 273, 106, 217, 218, 219};
    private static final long SYS_SECCOMP = Native.nr(317, 277), SYS_PRCTL = Native.nr(157, 167);

    /** Installs slirp4netns's filter on every thread; throws {@link SysException} when the kernel refuses it. */
    public static void install() {
        install(program(Native.X86_64));
    }

    /** Installs slirp4netns's filter with the isolation's further calls on every thread; throws {@link SysException} when refused. */
    public static void installForIsolation() {
        install(program(Native.X86_64, true));
    }

    private static void install(int[] program) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment err = arena.allocate(Linker.Option.captureStateLayout());
            int r = (int) syscall(SYS_PRCTL, err, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            if (r < 0) throw new SysException("prctl PR_SET_NO_NEW_PRIVS", errno(err));
            MemorySegment filter = arena.allocate(program.length * 2L * Integer.BYTES, 8);
            for (int i = 0; i < program.length; i += 2) {
                long at = i * (long) Integer.BYTES;
                filter.set(JAVA_SHORT, at, (short) (program[i] >>> 16));
                filter.set(JAVA_BYTE, at + 2, (byte) (program[i] >>> 8));
                filter.set(JAVA_BYTE, at + 3, (byte) program[i]);
                filter.set(JAVA_INT, at + 4, program[i + 1]);
            }
            MemorySegment fprog = arena.allocate(16, 8); // struct sock_fprog: unsigned short len, then a pointer
            fprog.set(JAVA_SHORT, 0, (short) (program.length / 2));
            fprog.set(JAVA_LONG, 8, filter.address());
            long s = syscall(SYS_SECCOMP, err, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, fprog.address());
            if (s < 0) throw new SysException("seccomp SECCOMP_SET_MODE_FILTER", errno(err));
            if (s > 0) throw new SysException("seccomp TSYNC: thread " + s + " could not take the filter", Errno.EPERM);
        }
    }

    /**
     * The classic BPF program as pairs (code << 16 | jt << 8 | jf, k): check the architecture,
     * then compare the system call number with each blocked one.
     */
    static int[] program(boolean x86) {
        return program(x86, false);
    }

    /** As {@link #program(boolean)}, with the isolation's further calls when isolation. */
    static int[] program(boolean x86, boolean isolation) {
        int[] blocked = x86 ? BLOCKED_X86_64 : BLOCKED_AARCH64;
        if (isolation) {
            int[] more = x86 ? ISOLATION_X86_64 : ISOLATION_AARCH64;
            blocked = java.util.stream.IntStream.concat(java.util.Arrays.stream(blocked), java.util.Arrays.stream(more)).toArray();
        }
        int n = blocked.length;
        java.util.List<int[]> p = new java.util.ArrayList<>();
        p.add(new int[] {LD_W_ABS, 0, 0, DATA_ARCH});
        p.add(new int[] {JEQ_K, 1, 0, x86 ? AUDIT_ARCH_X86_64 : AUDIT_ARCH_AARCH64});
        p.add(new int[] {RET_K, 0, 0, RET_KILL_PROCESS}); // another ABI: never used by this process, refused
        p.add(new int[] {LD_W_ABS, 0, 0, DATA_NR});
        if (x86) p.add(new int[] {JGE_K, n + 1, 0, X32_SYSCALL_BIT}); // to the refusal after the list and ALLOW
        for (int i = 0; i < n; i++) p.add(new int[] {JEQ_K, n - i, 0, blocked[i]}); // jump over the rest and ALLOW
        p.add(new int[] {RET_K, 0, 0, RET_ALLOW});
        p.add(new int[] {RET_K, 0, 0, RET_ERRNO | Errno.EPERM});
        int[] out = new int[p.size() * 2];
        for (int i = 0; i < p.size(); i++) {
            int[] insn = p.get(i);
            out[2 * i] = (insn[0] << 16) | (insn[1] << 8) | insn[2];
            out[2 * i + 1] = insn[3];
        }
        return out;
    }
}
