package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Capabilities, given up for good. Capability sets are per thread and the kernel has no call that
 * changes another thread's: {@link #keepOnly} confines a process only on the thread that then execs
 * (the new program starts from that thread's sets); {@link #becomeUser} reaches every thread, by
 * the C library's way of changing the user of all of them.
 */
public final class Capabilities {
    private Capabilities() {}

    public static final int CAP_NET_BIND_SERVICE = 10;

    private static final long PRCTL = nr(157, 167), CAPSET = nr(126, 91);
    private static final int PR_CAPBSET_DROP = 24, PR_SET_NO_NEW_PRIVS = 38, PR_CAP_AMBIENT = 47,
            PR_CAP_AMBIENT_CLEAR_ALL = 4;
    private static final int LINUX_CAPABILITY_VERSION_3 = 0x20080522;

    /**
     * Keeps only capability keep: no_new_privs set, the ambient set cleared, every other capability
     * dropped from the bounding set (so that no exec, not even of a root-owned program, gets it
     * back), and keep the only one left in the effective, permitted and inheritable sets.
     */
    public static void keepOnly(int keep) {
        prctl("PR_SET_NO_NEW_PRIVS", PR_SET_NO_NEW_PRIVS, 1, 0);
        prctl("PR_CAP_AMBIENT_CLEAR_ALL", PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0);
        for (int cap = 0; ; cap++) {
            if (cap == keep) continue;
            MemorySegment err = scratch().errno;
            if ((int) syscall(PRCTL, err, PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) {
                int e = errno(err);
                if (e == Errno.EINVAL) break; // past the last capability this kernel knows
                throw new SysException("prctl PR_CAPBSET_DROP " + cap, e);
            }
        }
        MemorySegment err = scratch().errno;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment header = arena.allocate(8, 4);
            header.set(ValueLayout.JAVA_INT, 0, LINUX_CAPABILITY_VERSION_3); // pid 0: this thread
            MemorySegment data = arena.allocate(24, 4); // two {effective, permitted, inheritable}
            int bit = 1 << keep;
            data.set(ValueLayout.JAVA_INT, 0, bit);
            data.set(ValueLayout.JAVA_INT, 4, bit);
            data.set(ValueLayout.JAVA_INT, 8, bit);
            if ((int) syscall(CAPSET, err, header.address(), data.address()) < 0) throw new SysException("capset", errno(err));
        }
    }

    /**
     * Every thread of the process becomes user uid (real, effective and saved), through the C
     * library's setresuid: the system call acts on the calling thread alone, and the library has
     * every thread it knows make it (all of a JVM's, the launcher's first thread among them). Going
     * from user 0 to another empties every thread's permitted, effective and ambient sets, so this
     * is how a running JVM gives up its capabilities everywhere at once, and for good (the saved
     * user changes too). Throws {@link SysException} when the user is not mapped in this user
     * namespace or the change is refused.
     */
    public static void becomeUser(int uid) {
        MemorySegment err = scratch().errno;
        int r;
        try {
            r = (int) Setresuid.HANDLE.invokeExact(err, uid, uid, uid);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
        if (r < 0) throw new SysException("setresuid " + uid, errno(err));
    }

    private static final class Setresuid {
        static final java.lang.invoke.MethodHandle HANDLE = Native.libc("setresuid",
                java.lang.foreign.FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    }

    private static void prctl(String what, int option, long a, long b) {
        MemorySegment err = scratch().errno;
        if ((int) syscall(PRCTL, err, option, a, b, 0, 0) < 0) throw new SysException("prctl " + what, errno(err));
    }
}
