package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

/** The filters' programs, run by a small classic-BPF interpreter on the seccomp data a call would have. */
class SeccompProgramTest {
    private static final int X86_64 = 0xc000003e, AARCH64 = 0xc00000b7, I386 = 0x40000003;
    private static final int ALLOW = 0x7fff0000, EPERM = 0x00050000 | 1, ENOSYS = 0x00050000 | 38, KILL = 0x80000000;

    private static final int USER_NOTIF = 0x7fc00000;

    /** The verdict of program for a call nr with first argument arg0 on arch. */
    static int run(int[] program, int arch, int nr, long arg0) {
        return run(program, arch, nr, 0, arg0);
    }

    /** The verdict of program for a call nr made at instruction pointer ip with args on arch. */
    static int run(int[] program, int arch, int nr, long ip, long... args) {
        int acc = 0;
        for (int pc = 0; pc < program.length / 2; ) {
            int op = program[2 * pc] >>> 16, jt = (program[2 * pc] >>> 8) & 0xff, jf = program[2 * pc] & 0xff, k = program[2 * pc + 1];
            switch (op) {
                case 0x20 -> { // ld [k]
                    acc = switch (k) {
                        case 0 -> nr;
                        case 4 -> arch;
                        case 8 -> (int) ip;
                        case 12 -> (int) (ip >>> 32);
                        default -> {
                            int i = (k - 16) / 8;
                            if (k < 16 || k >= 64 || k % 4 != 0) throw new AssertionError("load at " + k);
                            long a = i < args.length ? args[i] : 0;
                            yield k % 8 == 0 ? (int) a : (int) (a >>> 32);
                        }
                    };
                    pc++;
                }
                case 0x15 -> pc += 1 + (acc == k ? jt : jf);
                case 0x35 -> pc += 1 + (Integer.compareUnsigned(acc, k) >= 0 ? jt : jf);
                case 0x45 -> pc += 1 + ((acc & k) != 0 ? jt : jf);
                case 0x06 -> {
                    return k;
                }
                default -> throw new AssertionError("opcode " + op);
            }
        }
        throw new AssertionError("ran off the end");
    }

    /**
     * Each architecture's allow-list lets its own numbers of the named calls through and refuses
     * the rest: what slirp4netns's list refuses, what would change or leave the root
     * (pivot_root, chroot, the new mount API), the kernel's riskier parts (bpf, perf_event_open,
     * userfaultfd, kexec, modules, keys), and numbers no kernel has.
     */
    @Test
    void theAllowListLetsThroughItsCallsAndNothingElse() {
        for (boolean x86 : new boolean[] {true, false}) {
            int arch = x86 ? X86_64 : AARCH64;
            int[] p = Seccomp.allowList(x86, false);
            int[] allowed = Seccomp.allowed(x86);
            for (int nr : allowed) assertThat(run(p, arch, nr, 0)).as("call %d", nr).isEqualTo(ALLOW);
            assertThat(allowed).as("once each").doesNotHaveDuplicates();
            int[] refused = x86 ? new int[] {59, 322, 101, 310, 311, 157, 165, 166, 308, 272, 303, 304, // slirp4netns's
                    155, 161, 428, 429, 430, 431, 432, 433, 442, 321, 298, 323, 246, 320, 175, 313, 176, 248, 249, 250, // isolation's
                    126, 105, 113, 117, 425, 426, 427} // capset, setuid, setreuid, setresuid, io_uring
                    : new int[] {221, 281, 117, 270, 271, 167, 40, 39, 268, 97, 264, 265,
                    41, 51, 428, 429, 430, 431, 432, 433, 442, 280, 241, 282, 104, 294, 105, 273, 106, 217, 218, 219,
                    91, 146, 145, 147, 425, 426, 427};
            for (int nr : refused) assertThat(run(p, arch, nr, 0)).as("call %d", nr).isEqualTo(EPERM);
            assertThat(allowed).as("none of them in the list").doesNotContain(refused);
            assertThat(run(p, arch, 9999, 0)).as("a number no kernel has").isEqualTo(EPERM);
            assertThat(run(p, x86 ? AARCH64 : X86_64, 1, 0)).as("another ABI").isEqualTo(KILL);
        }
        int[] p = Seccomp.allowList(true, false);
        assertThat(run(p, X86_64, 0x40000000 | 1, 0)).as("x32's write").isEqualTo(EPERM);
        assertThat(run(p, I386, 1, 0)).as("another ABI").isEqualTo(KILL);
    }

    /**
     * The two architectures' lists name the same calls: each name has its number on each (aarch64
     * lacks only the old forms and x86's own calls, and has the newer form of each of those).
     */
    @Test
    void aarch64AllowsTheSameCallsInItsOwnNumbers() {
        java.util.Map<String, String> newer = java.util.Map.ofEntries(java.util.Map.entry("stat", "newfstatat"),
                java.util.Map.entry("lstat", "newfstatat"), java.util.Map.entry("poll", "ppoll"), java.util.Map.entry("access", "faccessat"),
                java.util.Map.entry("pipe", "pipe2"), java.util.Map.entry("dup2", "dup3"), java.util.Map.entry("getdents", "getdents64"),
                java.util.Map.entry("unlink", "unlinkat"), java.util.Map.entry("readlink", "readlinkat"),
                java.util.Map.entry("getpgrp", "getpgid"), java.util.Map.entry("epoll_wait", "epoll_pwait"),
                java.util.Map.entry("eventfd", "eventfd2"), java.util.Map.entry("arch_prctl", ""), java.util.Map.entry("time", ""));
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Seccomp.Call c : Seccomp.ALLOWED) names.add(c.name());
        for (Seccomp.Call c : Seccomp.ALLOWED) {
            assertThat(c.x86()).as(c.name()).isNotNegative();
            if (c.aarch64() >= 0) continue;
            assertThat(newer).as("%s has no aarch64 number", c.name()).containsKey(c.name());
            if (!newer.get(c.name()).isEmpty()) assertThat(names).as("%s's newer form", c.name()).contains(newer.get(c.name()));
        }
        // spot checks against the kernel's tables (asm-generic/unistd.h, arch/x86/entry/syscalls/syscall_64.tbl)
        java.util.Map<String, int[]> known = java.util.Map.of("read", new int[] {0, 63}, "openat", new int[] {257, 56},
                "epoll_pwait", new int[] {281, 22}, "futex", new int[] {202, 98}, "newfstatat", new int[] {262, 79},
                "rseq", new int[] {334, 293}, "sendmmsg", new int[] {307, 269}, "exit_group", new int[] {231, 94});
        for (Seccomp.Call c : Seccomp.ALLOWED) {
            if (known.containsKey(c.name())) assertThat(new int[] {c.x86(), c.aarch64()}).as(c.name()).containsExactly(known.get(c.name()));
        }
        assertThat(names).containsAll(known.keySet());
    }

    /**
     * The socket bypass's filter: connect with a sockaddr_in's or sockaddr_in6's length is held for
     * the listener unless this JVM's C library made it; every other call, length, ABI goes on.
     */
    @Test
    void theBypassHoldsTheCommandsInetConnectsOnly() {
        long start = 0x7f12_3400_0000L, end = 0x7f12_3418_0000L;
        for (boolean x86 : new boolean[] {true, false}) {
            int arch = x86 ? X86_64 : AARCH64, connect = x86 ? 42 : 203;
            int[] p = Seccomp.connectProgram(x86, start, end);
            long elsewhere = 0x5555_0000_1234L;
            assertThat(run(p, arch, connect, elsewhere, 3, 0x1000, 16)).as("IPv4").isEqualTo(USER_NOTIF);
            assertThat(run(p, arch, connect, elsewhere, 3, 0x1000, 28)).as("IPv6").isEqualTo(USER_NOTIF);
            assertThat(run(p, arch, connect, 0x7f13_3400_1000L, 3, 0x1000, 16)).as("another 4 GiB block").isEqualTo(USER_NOTIF);
            assertThat(run(p, arch, connect, elsewhere, 3, 0x1000, 110)).as("a unix socket's").isEqualTo(ALLOW);
            assertThat(run(p, arch, connect, elsewhere, 3, 0x1000, 128)).as("a sockaddr_storage's").isEqualTo(ALLOW);
            assertThat(run(p, arch, connect, start, 3, 0x1000, 16)).as("the C library's first byte").isEqualTo(ALLOW);
            assertThat(run(p, arch, connect, end - 1, 3, 0x1000, 28)).as("its last").isEqualTo(ALLOW);
            assertThat(run(p, arch, connect, end, 3, 0x1000, 16)).as("just past it").isEqualTo(USER_NOTIF);
            assertThat(run(p, arch, connect, start - 1, 3, 0x1000, 16)).as("just before it").isEqualTo(USER_NOTIF);
            assertThat(run(p, arch, x86 ? 44 : 206, elsewhere, 3, 0x1000, 16)).as("sendto").isEqualTo(ALLOW);
            assertThat(run(p, x86 ? AARCH64 : X86_64, connect, elsewhere, 3, 0x1000, 16)).as("another ABI").isEqualTo(ALLOW);
        }
        assertThat(run(Seccomp.connectProgram(true, start, end), X86_64, 0x40000000 | 42, 0x5555_0000_1234L, 3, 0x1000, 16))
                .as("x32's connect").isEqualTo(ALLOW);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Seccomp.connectProgram(true, 0xffff_f000L, 0x1_0000_1000L))
                .as("a range across a 4 GiB boundary").isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theBypassesCallsAreAllowedOnlyWithIt() {
        for (boolean x86 : new boolean[] {true, false}) {
            int[] with = Seccomp.allowList(x86, true), without = Seccomp.allowList(x86, false);
            for (int nr : x86 ? new int[] {310, 434, 438} : new int[] {270, 434, 438}) {
                assertThat(run(with, x86 ? X86_64 : AARCH64, nr, 0)).as("call %d with the bypass", nr).isEqualTo(ALLOW);
                assertThat(run(without, x86 ? X86_64 : AARCH64, nr, 0)).as("call %d without", nr).isEqualTo(EPERM);
            }
        }
    }

    @Test
    void cloneMakesThreadsAndProcessesButNoNamespaces() {
        for (boolean x86 : new boolean[] {true, false}) {
            int[] p = Seccomp.allowList(x86, false);
            int arch = x86 ? X86_64 : AARCH64, clone = x86 ? 56 : 220;
            long thread = 0x003d0f00L; // CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID
            assertThat(run(p, arch, clone, thread)).isEqualTo(ALLOW);
            assertThat(run(p, arch, clone, 17)).as("fork (SIGCHLD)").isEqualTo(ALLOW);
            for (long ns : new long[] {0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000}) {
                assertThat(run(p, arch, clone, thread | ns)).as("clone with %x", ns).isEqualTo(EPERM);
            }
            assertThat(run(p, arch, 435, 0)).as("clone3: its flags are behind a pointer").isEqualTo(ENOSYS);
        }
    }

    @Test
    void theDenyListsRefuseTheirCallsAndLetTheRestThrough() {
        int[] x86 = Seccomp.program(true), arm = Seccomp.program(false);
        assertThat(run(x86, X86_64, 272, 0)).as("unshare").isEqualTo(EPERM);
        assertThat(run(x86, X86_64, 0, 0)).as("read").isEqualTo(ALLOW);
        assertThat(run(x86, X86_64, 0x40000000, 0)).as("x32").isEqualTo(EPERM);
        assertThat(run(x86, AARCH64, 0, 0)).isEqualTo(KILL);
        assertThat(run(arm, AARCH64, 97, 0)).as("unshare").isEqualTo(EPERM);
        assertThat(run(arm, AARCH64, 63, 0)).as("read").isEqualTo(ALLOW);
        assertThat(run(x86, X86_64, 250, 0)).as("keyctl: slirp4netns's list lets it through").isEqualTo(ALLOW);
    }
}
