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
    /** What the socket bypass needs once isolated: process_vm_readv, pidfd_open, pidfd_getfd. */
    private static final int[] BYPASS_X86_64 = {310, 434, 438};
    private static final int SECCOMP_FILTER_FLAG_NEW_LISTENER = 8, SECCOMP_FILTER_FLAG_TSYNC_ESRCH = 16,
            SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV = 32;
    private static final int RET_USER_NOTIF = 0x7fc00000;
    private static final int CONNECT_X86_64 = 42, CONNECT_AARCH64 = 203;
    /** Offsets in struct seccomp_data: the low and high halves of the instruction pointer, the low half of the third argument. */
    private static final int DATA_IP_LO = 8, DATA_IP_HI = 12, DATA_ARG2 = 32;
    /** sizeof(struct sockaddr_in), sizeof(struct sockaddr_in6). */
    private static final int SOCKADDR_IN = 16, SOCKADDR_IN6 = 28;

    /** Installs slirp4netns's filter on every thread; throws {@link SysException} when the kernel refuses it. */
    public static void install() {
        install(program(Native.X86_64));
    }

    /**
     * Installs the isolation's filter on every thread: on x86-64 the allow-list ({@link #allowList}),
     * elsewhere slirp4netns's filter with the isolation's further calls. Throws {@link SysException}
     * when refused.
     */
    public static void installForIsolation() {
        installForIsolation(false);
    }

    /** As {@link #installForIsolation()}, with the calls the socket bypass makes allowed when bypass. */
    public static void installForIsolation(boolean bypass) {
        install(Native.X86_64 ? allowList(bypass) : program(false, true, bypass));
    }

    /**
     * The socket bypass's filter, on every thread of this process (TSYNC) and so on every process
     * they start: connect() with the address length of a sockaddr_in or sockaddr_in6, made by code
     * outside [codeStart, codeEnd), is held for the listener returned (close-on-exec); every other
     * call goes on at once, and so does a connect of this JVM's, all of which come from its C
     * library's code, which the range names ({@link #connectProgram}). Without no_new_privs: the
     * caller needs CAP_SYS_ADMIN in its user namespace (jslirp run's JVM has it there). Throws
     * {@link SysException} where the kernel lacks what it takes (Linux 5.7 for a listener with
     * TSYNC; a killable wait, 5.19, is asked for where there is one).
     */
    public static int installConnectListener(long codeStart, long codeEnd) {
        int[] program = connectProgram(Native.X86_64, codeStart, codeEnd);
        int flags = SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_TSYNC | SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment err = arena.allocate(Linker.Option.captureStateLayout());
            MemorySegment fprog = fprog(arena, program);
            long s = syscall(SYS_SECCOMP, err, SECCOMP_SET_MODE_FILTER, flags | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, fprog.address());
            if (s < 0 && errno(err) == Errno.EINVAL) s = syscall(SYS_SECCOMP, err, SECCOMP_SET_MODE_FILTER, flags, fprog.address());
            if (s < 0) throw new SysException("seccomp SECCOMP_FILTER_FLAG_NEW_LISTENER", errno(err));
            return (int) s;
        }
    }

    /**
     * The bypass's program (pairs as {@link #program(boolean)}): another architecture's calls, and
     * x32's, go on (they are not this ABI's connect); connect with an address length of 16 or 28
     * from an instruction outside [codeStart, codeEnd) is held for the listener. The range must lie
     * within one 4 GiB block (BPF compares 32 bits at a time).
     */
    static int[] connectProgram(boolean x86, long codeStart, long codeEnd) {
        if (codeStart >= codeEnd || codeStart >>> 32 != (codeEnd - 1) >>> 32 || (int) codeEnd == 0) {
            throw new IllegalArgumentException("the C library's code crosses a 4 GiB boundary or is empty");
        }
        Bpf b = new Bpf();
        b.load(DATA_ARCH);
        b.jump(JEQ_K, x86 ? AUDIT_ARCH_X86_64 : AUDIT_ARCH_AARCH64, null, "allow");
        b.load(DATA_NR);
        b.jump(JEQ_K, x86 ? CONNECT_X86_64 : CONNECT_AARCH64, null, "allow");
        b.load(DATA_ARG2);
        b.jump(JEQ_K, SOCKADDR_IN, "where", null);
        b.jump(JEQ_K, SOCKADDR_IN6, "where", "allow");
        b.label("where");
        b.load(DATA_IP_HI);
        b.jump(JEQ_K, (int) (codeStart >>> 32), null, "notify");
        b.load(DATA_IP_LO);
        b.jump(JGE_K, (int) codeStart, null, "notify"); // unsigned comparisons
        b.jump(JGE_K, (int) codeEnd, "notify", "allow");
        b.verdict("notify", RET_USER_NOTIF);
        b.verdict("allow", RET_ALLOW);
        return b.assemble();
    }

    private static void install(int[] program) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment err = arena.allocate(Linker.Option.captureStateLayout());
            int r = (int) syscall(SYS_PRCTL, err, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
            if (r < 0) throw new SysException("prctl PR_SET_NO_NEW_PRIVS", errno(err));
            MemorySegment fprog = fprog(arena, program);
            long s = syscall(SYS_SECCOMP, err, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, fprog.address());
            if (s < 0) throw new SysException("seccomp SECCOMP_SET_MODE_FILTER", errno(err));
            if (s > 0) throw new SysException("seccomp TSYNC: thread " + s + " could not take the filter", Errno.EPERM);
        }
    }

    /** The program as a struct sock_fprog (unsigned short len, then a pointer to the instructions) in arena. */
    private static MemorySegment fprog(Arena arena, int[] program) {
        MemorySegment filter = arena.allocate(program.length * 2L * Integer.BYTES, 8);
        for (int i = 0; i < program.length; i += 2) {
            long at = i * (long) Integer.BYTES;
            filter.set(JAVA_SHORT, at, (short) (program[i] >>> 16));
            filter.set(JAVA_BYTE, at + 2, (byte) (program[i] >>> 8));
            filter.set(JAVA_BYTE, at + 3, (byte) program[i]);
            filter.set(JAVA_INT, at + 4, program[i + 1]);
        }
        MemorySegment fprog = arena.allocate(16, 8);
        fprog.set(JAVA_SHORT, 0, (short) (program.length / 2));
        fprog.set(JAVA_LONG, 8, filter.address());
        return fprog;
    }

    /**
     * The system calls an isolated instance makes once set up (x86-64 numbers), everything else
     * refused with EPERM ({@link #allowList}): what jslirp's own code calls while it serves (the
     * io.jslirp.sys numbers: files it has open, sockets, the tap, epoll, splice, eventfds, shared
     * memory, and setsid and dup3 for pasta's detach), what the JVM and the C library call in a
     * running process (memory, threads, futexes, signals, time, reading the jar and the runtime
     * image, limits and scheduling queries), and a few that fail harmlessly in an empty root
     * (unlink of a socket file at exit). Found with strace -f of isolated pasta and qemu instances
     * under traffic, then checked against the suite. clone is there only without a namespace flag;
     * clone3 gets ENOSYS, on which the C library falls back to clone.
     */
    static final int[] ALLOWED_X86_64 = {
        0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 24, 25, 26, 27, 28, 32,
        33, 35, 39, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 60, 61, 62, 63, 72, 73, 74,
        75, 77, 78, 79, 87, 89, 95, 96, 97, 98, 99, 100, 102, 104, 107, 108, 110, 111, 112, 115, 118, 120,
        121, 124, 125, 128, 131, 137, 138, 140, 143, 145, 146, 147, 158, 186, 201, 202, 204, 217, 218, 219,
        228, 229, 230, 231, 232, 233, 234, 247, 257, 262, 263, 267, 269, 270, 271, 273, 274, 275, 276, 281,
        283, 284, 285, 286, 287, 288, 290, 291, 292, 293, 295, 296, 299, 302, 307, 309, 318, 319, 324, 332,
        334, 436, 439, 441};
    private static final int CLONE_X86_64 = 56, CLONE3_X86_64 = 435;
    /** CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET. */
    static final int CLONE_NAMESPACES = 0x7E020000;
    /** Offset of the low half of the first argument in struct seccomp_data (little-endian). */
    private static final int DATA_ARG0 = 16;
    private static final short JSET_K = 0x45;

    /**
     * The isolation's allow-list program on x86-64 (pairs as {@link #program(boolean)}): another ABI
     * kills, an x32 call or one not in {@link #ALLOWED_X86_64} fails with EPERM, clone with a
     * namespace flag too, clone3 with ENOSYS.
     */
    static int[] allowList() {
        return allowList(false);
    }

    /** As {@link #allowList()}, with the bypass's calls ({@link #BYPASS_X86_64}) allowed too when bypass. */
    static int[] allowList(boolean bypass) {
        Bpf b = Bpf.forArchitecture(true);
        b.jump(JEQ_K, CLONE_X86_64, "clone", null);
        b.jump(JEQ_K, CLONE3_X86_64, "enosys", null);
        for (int nr : ALLOWED_X86_64) b.jump(JEQ_K, nr, "allow", null);
        if (bypass) for (int nr : BYPASS_X86_64) b.jump(JEQ_K, nr, "allow", null);
        b.ret(RET_ERRNO | Errno.EPERM); // none of them
        b.label("clone");
        b.load(DATA_ARG0);
        b.jump(JSET_K, CLONE_NAMESPACES, "refuse", "allow");
        b.verdict("enosys", RET_ERRNO | Errno.ENOSYS);
        b.verdict("allow", RET_ALLOW);
        return b.assemble();
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
        return program(x86, isolation, false);
    }

    /** As {@link #program(boolean, boolean)}, with process_vm_readv allowed when bypass (the socket bypass reads addresses with it). */
    static int[] program(boolean x86, boolean isolation, boolean bypass) {
        int[] blocked = x86 ? BLOCKED_X86_64 : BLOCKED_AARCH64;
        if (bypass) {
            int readv = x86 ? 310 : 270;
            blocked = java.util.Arrays.stream(blocked).filter(nr -> nr != readv).toArray();
        }
        if (isolation) {
            int[] more = x86 ? ISOLATION_X86_64 : ISOLATION_AARCH64;
            blocked = java.util.stream.IntStream.concat(java.util.Arrays.stream(blocked), java.util.Arrays.stream(more)).toArray();
        }
        Bpf b = Bpf.forArchitecture(x86);
        for (int nr : blocked) b.jump(JEQ_K, nr, "refuse", null);
        b.ret(RET_ALLOW);
        return b.assemble();
    }

    /** A classic BPF program written with labels for its jumps' targets (null: the next instruction), then assembled. */
    private static final class Bpf {
        private final java.util.List<Object[]> insns = new java.util.ArrayList<>(); // code, k, jt label, jf label
        private final java.util.Map<String, Integer> labels = new java.util.HashMap<>();

        /**
         * A program that first kills a call made through another ABI than this process's (which it
         * never uses) and refuses x32's on x86-64, then has the call's number loaded; assembled
         * with the verdicts "kill" and "refuse" (EPERM) at its end.
         */
        static Bpf forArchitecture(boolean x86) {
            Bpf b = new Bpf();
            b.load(DATA_ARCH);
            b.jump(JEQ_K, x86 ? AUDIT_ARCH_X86_64 : AUDIT_ARCH_AARCH64, null, "kill");
            b.load(DATA_NR);
            if (x86) b.jump(JGE_K, X32_SYSCALL_BIT, "refuse", null);
            return b;
        }

        /** A labelled return, after the checks (classic BPF jumps forward only). */
        void verdict(String label, int ret) {
            label(label);
            ret(ret);
        }

        void load(int offset) {
            insns.add(new Object[] {LD_W_ABS, offset, null, null});
        }

        void jump(short code, int k, String yes, String no) {
            insns.add(new Object[] {code, k, yes, no});
        }

        void ret(int k) {
            insns.add(new Object[] {RET_K, k, null, null});
        }

        void label(String name) {
            labels.put(name, insns.size());
        }

        int[] assemble() {
            verdict("kill", RET_KILL_PROCESS);
            verdict("refuse", RET_ERRNO | Errno.EPERM);
            int[] out = new int[insns.size() * 2];
            for (int i = 0; i < insns.size(); i++) {
                Object[] insn = insns.get(i);
                int code = (short) insn[0], jt = offset(i, (String) insn[2]), jf = offset(i, (String) insn[3]);
                out[2 * i] = (code << 16) | (jt << 8) | jf;
                out[2 * i + 1] = (int) insn[1];
            }
            return out;
        }

        private int offset(int from, String label) {
            if (label == null) return 0;
            int d = labels.get(label) - from - 1;
            if (d < 0 || d > 255) throw new IllegalStateException("BPF jump to " + label + " out of reach: " + d);
            return d;
        }
    }
}
