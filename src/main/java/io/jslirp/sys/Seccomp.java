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
    private static final long SYS_SECCOMP = Native.nr(317, 277), SYS_PRCTL = Native.nr(157, 167);
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
     * Installs the isolation's filter on every thread: the allow-list ({@link #allowList}) of this
     * architecture (x86-64 or aarch64). Throws {@link SysException} when refused.
     */
    public static void installForIsolation() {
        installForIsolation(false);
    }

    /** As {@link #installForIsolation()}, with the calls the socket bypass makes allowed when bypass. */
    public static void installForIsolation(boolean bypass) {
        install(allowList(Native.X86_64, bypass));
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

    /** A system call by name with its numbers on x86-64 and aarch64 (-1: none there). */
    record Call(String name, int x86, int aarch64) {
        int number(boolean onX86) {
            return onX86 ? x86 : aarch64;
        }
    }

    private static Call call(String name, int x86, int aarch64) {
        return new Call(name, x86, aarch64);
    }

    /**
     * The system calls an isolated instance makes once set up, everything else refused with EPERM
     * ({@link #allowList}): what jslirp's own code calls while it serves (the io.jslirp.sys
     * numbers: files it has open, sockets, the tap, epoll, splice, eventfds, shared memory, and
     * setsid and dup3 for pasta's detach), what the JVM and the C library call in a running process
     * (memory, threads, futexes, signals, time, reading the jar and the runtime image, limits and
     * scheduling queries), and a few that fail harmlessly in an empty root (unlink of a socket file
     * at exit). Found with strace -f of isolated pasta and qemu instances on x86-64 under traffic,
     * then checked against the suite. aarch64 has the same calls by name where it has them: it lacks
     * the old forms (stat, poll, pipe, dup2, epoll_wait, ...), whose newer forms are listed too and
     * are what its C library calls, and x86's own (arch_prctl, time). clone is allowed only without
     * a namespace flag; clone3 gets ENOSYS, on which the C library falls back to clone.
     */
    static final Call[] ALLOWED = {
        call("read", 0, 63), call("write", 1, 64), call("close", 3, 57), call("stat", 4, -1), call("fstat", 5, 80),
        call("lstat", 6, -1), call("poll", 7, -1), call("lseek", 8, 62), call("mmap", 9, 222), call("mprotect", 10, 226),
        call("munmap", 11, 215), call("brk", 12, 214), call("rt_sigaction", 13, 134), call("rt_sigprocmask", 14, 135),
        call("rt_sigreturn", 15, 139), call("ioctl", 16, 29), call("pread64", 17, 67), call("pwrite64", 18, 68),
        call("readv", 19, 65), call("writev", 20, 66), call("access", 21, -1), call("pipe", 22, -1),
        call("sched_yield", 24, 124), call("mremap", 25, 216), call("msync", 26, 227), call("mincore", 27, 232),
        call("madvise", 28, 233), call("dup", 32, 23), call("dup2", 33, -1), call("nanosleep", 35, 101), call("getpid", 39, 172),
        call("socket", 41, 198), call("connect", 42, 203), call("accept", 43, 202), call("sendto", 44, 206),
        call("recvfrom", 45, 207), call("sendmsg", 46, 211), call("recvmsg", 47, 212), call("shutdown", 48, 210),
        call("bind", 49, 200), call("listen", 50, 201), call("getsockname", 51, 204), call("getpeername", 52, 205),
        call("socketpair", 53, 199), call("setsockopt", 54, 208), call("getsockopt", 55, 209), call("exit", 60, 93),
        call("wait4", 61, 260), call("kill", 62, 129), call("uname", 63, 160), call("fcntl", 72, 25), call("flock", 73, 32),
        call("fsync", 74, 82), call("fdatasync", 75, 83), call("ftruncate", 77, 46), call("getdents", 78, -1),
        call("getcwd", 79, 17), call("unlink", 87, -1), call("readlink", 89, -1), call("umask", 95, 166),
        call("gettimeofday", 96, 169), call("getrlimit", 97, 163), call("getrusage", 98, 165), call("sysinfo", 99, 179),
        call("times", 100, 153), call("getuid", 102, 174), call("getgid", 104, 176), call("geteuid", 107, 175),
        call("getegid", 108, 177), call("getppid", 110, 173), call("getpgrp", 111, -1), call("setsid", 112, 157),
        call("getgroups", 115, 158), call("getresuid", 118, 148), call("getresgid", 120, 150), call("getpgid", 121, 155),
        call("getsid", 124, 156), call("capget", 125, 90), call("rt_sigtimedwait", 128, 137), call("sigaltstack", 131, 132),
        call("statfs", 137, 43), call("fstatfs", 138, 44), call("getpriority", 140, 141), call("sched_getparam", 143, 121),
        call("sched_getscheduler", 145, 120), call("sched_get_priority_max", 146, 125), call("sched_get_priority_min", 147, 126),
        call("arch_prctl", 158, -1), call("gettid", 186, 178), call("time", 201, -1), call("futex", 202, 98),
        call("sched_getaffinity", 204, 123), call("getdents64", 217, 61), call("set_tid_address", 218, 96),
        call("restart_syscall", 219, 128), call("clock_gettime", 228, 113), call("clock_getres", 229, 114),
        call("clock_nanosleep", 230, 115), call("exit_group", 231, 94), call("epoll_wait", 232, -1), call("epoll_ctl", 233, 21),
        call("tgkill", 234, 131), call("waitid", 247, 95), call("openat", 257, 56), call("newfstatat", 262, 79),
        call("unlinkat", 263, 35), call("readlinkat", 267, 78), call("faccessat", 269, 48), call("pselect6", 270, 72),
        call("ppoll", 271, 73), call("set_robust_list", 273, 99), call("get_robust_list", 274, 100), call("splice", 275, 76),
        call("tee", 276, 77), call("epoll_pwait", 281, 22), call("timerfd_create", 283, 85), call("eventfd", 284, -1),
        call("fallocate", 285, 47), call("timerfd_settime", 286, 86), call("timerfd_gettime", 287, 87),
        call("accept4", 288, 242), call("eventfd2", 290, 19), call("epoll_create1", 291, 20), call("dup3", 292, 24),
        call("pipe2", 293, 59), call("preadv", 295, 69), call("pwritev", 296, 70), call("recvmmsg", 299, 243),
        call("prlimit64", 302, 261), call("sendmmsg", 307, 269), call("getcpu", 309, 168), call("getrandom", 318, 278),
        call("memfd_create", 319, 279), call("membarrier", 324, 283), call("statx", 332, 291), call("rseq", 334, 293),
        call("close_range", 436, 436), call("faccessat2", 439, 439), call("epoll_pwait2", 441, 441)};
    /** What the socket bypass needs once isolated. */
    static final Call[] BYPASS = {call("process_vm_readv", 310, 270), call("pidfd_open", 434, 434), call("pidfd_getfd", 438, 438)};
    private static final Call CLONE = call("clone", 56, 220), CLONE3 = call("clone3", 435, 435);
    /** CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET. */
    static final int CLONE_NAMESPACES = 0x7E020000;
    /** Offset of the low half of the first argument in struct seccomp_data (little-endian). */
    private static final int DATA_ARG0 = 16;
    private static final short JSET_K = 0x45;

    /** The allowed calls' numbers on x86-64 (x86) or aarch64, in order. */
    static int[] allowed(boolean x86) {
        return java.util.Arrays.stream(ALLOWED).mapToInt(c -> c.number(x86)).filter(nr -> nr >= 0).sorted().toArray();
    }

    /**
     * The isolation's allow-list program (pairs as {@link #program(boolean)}) on x86-64 (x86) or
     * aarch64: another ABI kills, an x32 call or one not in {@link #ALLOWED} fails with EPERM, clone
     * with a namespace flag too, clone3 with ENOSYS; with bypass, {@link #BYPASS}'s calls are
     * allowed too. The first argument is clone's flags on both.
     */
    static int[] allowList(boolean x86, boolean bypass) {
        Bpf b = Bpf.forArchitecture(x86);
        b.jump(JEQ_K, CLONE.number(x86), "clone", null);
        b.jump(JEQ_K, CLONE3.number(x86), "enosys", null);
        for (int nr : allowed(x86)) b.jump(JEQ_K, nr, "allow", null);
        if (bypass) for (Call c : BYPASS) b.jump(JEQ_K, c.number(x86), "allow", null);
        b.ret(RET_ERRNO | Errno.EPERM); // none of them
        b.label("clone");
        b.load(DATA_ARG0);
        b.jump(JSET_K, CLONE_NAMESPACES, "refuse", "allow");
        b.verdict("enosys", RET_ERRNO | Errno.ENOSYS);
        b.verdict("allow", RET_ALLOW);
        return b.assemble();
    }

    /**
     * slirp4netns's filter, the classic BPF program as pairs (code << 16 | jt << 8 | jf, k): check
     * the architecture, then compare the system call number with each blocked one.
     */
    static int[] program(boolean x86) {
        Bpf b = Bpf.forArchitecture(x86);
        for (int nr : x86 ? BLOCKED_X86_64 : BLOCKED_AARCH64) b.jump(JEQ_K, nr, "refuse", null);
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
