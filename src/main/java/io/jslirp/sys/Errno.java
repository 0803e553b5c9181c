package io.jslirp.sys;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** Linux errno values used by jslirp, and their descriptions. */
public final class Errno {
    private Errno() {}

    public static final int EPERM = 1, ENOENT = 2, ESRCH = 3, EINTR = 4, EBADF = 9, EAGAIN = 11, ENODEV = 19,
            ENOMEM = 12, EACCES = 13, EEXIST = 17, ENOTDIR = 20, EINVAL = 22, ENFILE = 23, EMFILE = 24, EROFS = 30, EPIPE = 32, ENOSYS = 38, EMSGSIZE = 90, EPROTOTYPE = 91, ENOPROTOOPT = 92, EOPNOTSUPP = 95, EADDRINUSE = 98,
            ENETUNREACH = 101, ECONNRESET = 104, ENOBUFS = 105, ENOTCONN = 107, ETIMEDOUT = 110,
            ECONNREFUSED = 111, EHOSTUNREACH = 113, EALREADY = 114, EINPROGRESS = 115;

    // glibc ≥ 2.32: untranslated, thread-safe, and names the constant; plain strerror elsewhere (musl).
    private static final MethodHandle DESC = lookup("strerrordesc_np", "strerror");
    private static final MethodHandle NAME = lookup("strerrorname_np", null);

    private static MethodHandle lookup(String preferred, String fallback) {
        var fd = FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT);
        var symbol = Native.LINKER.defaultLookup().find(preferred);
        if (symbol.isEmpty() && fallback != null) {
            symbol = Native.LINKER.defaultLookup().find(fallback);
        }
        return symbol.map(s -> Native.LINKER.downcallHandle(s, fd)).orElse(null);
    }

    /** Whether errno says the process or the system has no descriptor left (EMFILE, ENFILE). */
    public static boolean isDescriptorLimit(int errno) {
        return errno == EMFILE || errno == ENFILE;
    }

    /**
     * Whether errno says a call failed for want of resources that come back as others are freed:
     * no descriptor left ({@link #isDescriptorLimit}) or no memory (ENOBUFS, ENOMEM). A listener
     * whose accept fails so rests rather than trying again at once.
     */
    public static boolean isResourceShortage(int errno) {
        return isDescriptorLimit(errno) || errno == ENOBUFS || errno == ENOMEM;
    }

    /** E.g. {@code "Connection refused (ECONNREFUSED)"}; {@code "errno 999"} for unknown values. */
    public static String describe(int errno) {
        String desc = cString(DESC, errno);
        String name = cString(NAME, errno);
        if (desc == null) {
            return name == null ? "errno " + errno : name;
        }
        return name == null ? desc + " (errno " + errno + ")" : desc + " (" + name + ")";
    }

    private static String cString(MethodHandle fn, int errno) {
        if (fn == null) {
            return null;
        }
        try {
            MemorySegment p = (MemorySegment) fn.invokeExact(errno);
            return p.equals(MemorySegment.NULL) ? null : p.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            throw Native.rethrow(t);
        }
    }
}
