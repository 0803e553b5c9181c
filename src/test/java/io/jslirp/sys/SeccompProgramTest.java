package io.jslirp.sys;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

/** The filters' programs, run by a small classic-BPF interpreter on the seccomp data a call would have. */
class SeccompProgramTest {
    private static final int X86_64 = 0xc000003e, AARCH64 = 0xc00000b7, I386 = 0x40000003;
    private static final int ALLOW = 0x7fff0000, EPERM = 0x00050000 | 1, ENOSYS = 0x00050000 | 38, KILL = 0x80000000;

    /** The verdict of program for a call nr with first argument arg0 on arch. */
    static int run(int[] program, int arch, int nr, long arg0) {
        int acc = 0;
        for (int pc = 0; pc < program.length / 2; ) {
            int op = program[2 * pc] >>> 16, jt = (program[2 * pc] >>> 8) & 0xff, jf = program[2 * pc] & 0xff, k = program[2 * pc + 1];
            switch (op) {
                case 0x20 -> { // ld [k]
                    acc = switch (k) {
                        case 0 -> nr;
                        case 4 -> arch;
                        case 16 -> (int) arg0;
                        case 20 -> (int) (arg0 >>> 32);
                        default -> throw new AssertionError("load at " + k);
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
