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

    @Test
    void theAllowListLetsThroughItsCallsAndNothingElse() {
        int[] p = Seccomp.allowList();
        for (int nr : Seccomp.ALLOWED_X86_64) assertThat(run(p, X86_64, nr, 0)).as("call %d", nr).isEqualTo(ALLOW);
        // what the deny-lists refuse stays refused: execve, ptrace, mount, setns, unshare, pivot_root, bpf, keyctl...
        for (int nr : new int[] {59, 322, 101, 310, 311, 157, 165, 166, 308, 272, 155, 161, 428, 429, 430, 431, 432, 433, 442, 321, 298, 323,
                246, 320, 175, 313, 176, 248, 249, 250, 126, 105, 113, 117, 425, 426, 427}) {
            assertThat(run(p, X86_64, nr, 0)).as("call %d", nr).isEqualTo(EPERM);
        }
        assertThat(Seccomp.ALLOWED_X86_64).as("sorted, once each").isSorted().doesNotHaveDuplicates();
        assertThat(run(p, X86_64, 9999, 0)).as("a number no kernel has").isEqualTo(EPERM);
        assertThat(run(p, X86_64, 0x40000000 | 1, 0)).as("x32's write").isEqualTo(EPERM);
        assertThat(run(p, I386, 1, 0)).as("another ABI").isEqualTo(KILL);
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
        int[] with = Seccomp.allowList(true), without = Seccomp.allowList(false);
        for (int nr : new int[] {310, 434, 438}) {
            assertThat(run(with, X86_64, nr, 0)).as("call %d with the bypass", nr).isEqualTo(ALLOW);
            assertThat(run(without, X86_64, nr, 0)).as("call %d without", nr).isEqualTo(EPERM);
        }
        assertThat(run(Seccomp.program(false, true, true), AARCH64, 270, 0)).as("process_vm_readv on aarch64").isEqualTo(ALLOW);
        assertThat(run(Seccomp.program(false, true, false), AARCH64, 270, 0)).isEqualTo(EPERM);
    }

    @Test
    void cloneMakesThreadsAndProcessesButNoNamespaces() {
        int[] p = Seccomp.allowList();
        long thread = 0x003d0f00L; // CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM|SETTLS|PARENT_SETTID|CHILD_CLEARTID
        assertThat(run(p, X86_64, 56, thread)).isEqualTo(ALLOW);
        assertThat(run(p, X86_64, 56, 17)).as("fork (SIGCHLD)").isEqualTo(ALLOW);
        for (long ns : new long[] {0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000}) {
            assertThat(run(p, X86_64, 56, thread | ns)).as("clone with %x", ns).isEqualTo(EPERM);
        }
        assertThat(run(p, X86_64, 435, 0)).as("clone3: its flags are behind a pointer").isEqualTo(ENOSYS);
    }

    @Test
    void theDenyListsRefuseTheirCallsAndLetTheRestThrough() {
        for (boolean isolation : new boolean[] {false, true}) {
            int[] x86 = Seccomp.program(true, isolation), arm = Seccomp.program(false, isolation);
            assertThat(run(x86, X86_64, 272, 0)).as("unshare").isEqualTo(EPERM);
            assertThat(run(x86, X86_64, 0, 0)).as("read").isEqualTo(ALLOW);
            assertThat(run(x86, X86_64, 0x40000000, 0)).as("x32").isEqualTo(EPERM);
            assertThat(run(x86, AARCH64, 0, 0)).isEqualTo(KILL);
            assertThat(run(arm, AARCH64, 97, 0)).as("unshare").isEqualTo(EPERM);
            assertThat(run(arm, AARCH64, 63, 0)).as("read").isEqualTo(ALLOW);
            assertThat(run(x86, X86_64, 250, 0)).as("keyctl").isEqualTo(isolation ? EPERM : ALLOW);
            assertThat(run(arm, AARCH64, 219, 0)).as("keyctl").isEqualTo(isolation ? EPERM : ALLOW);
        }
        assertThat(Arrays.stream(Seccomp.ALLOWED_X86_64)).as("no call of slirp4netns's list is allowed")
                .doesNotContain(59, 322, 101, 310, 311, 157, 165, 166, 308, 272, 303, 304);
    }
}
