package io.jslirp.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Shared FFM plumbing: the linker, downcall construction with errno capture, and per-thread scratch
 * memory so that data-path calls allocate nothing.
 */
final class Native {
    private Native() {}

    static final Linker LINKER = Linker.nativeLinker();

    /** Network byte order views for sockaddr_in fields. */
    static final ValueLayout.OfShort NET_SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt NET_INT =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong NET_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    static final boolean X86_64;
    static {
        String arch = System.getProperty("os.arch");
        X86_64 = arch.equals("amd64") || arch.equals("x86_64");
        if (!X86_64 && !arch.equals("aarch64")) {
            throw new ExceptionInInitializerError("unsupported architecture " + arch);
        }
    }

    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /** Downcall whose first parameter is the errno capture segment; linked on its first call. */
    static MethodHandle downcall(String name, FunctionDescriptor fd, Linker.Option... extra) {
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = CAPTURE_ERRNO;
        System.arraycopy(extra, 0, options, 1, extra.length);
        MethodType type = fd.toMethodType().insertParameterTypes(0, MemorySegment.class);
        return lazily(name, type, () -> LINKER.downcallHandle(find(name), fd, options));
    }

    /**
     * A handle of the given type that links its downcall on its first call and then calls it
     * directly. Linking a downcall takes milliseconds, and most are not needed to start up (a
     * {@code jslirp run -- true} uses a third of them). The handle is a call site's invoker: once
     * linked, its target is the downcall itself, which the JIT compiles in as a constant, so the
     * data path pays nothing for the indirection.
     */
    private static MethodHandle lazily(String name, MethodType type, Supplier<MethodHandle> linker) {
        return new LazyDowncall(name, type, linker).invoker();
    }

    // ioctl(fd, unsigned long request, ...) is variadic; the argument pointer is the variadic one.
    private static final MethodHandle IOCTL = downcall("ioctl",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG),
            Linker.Option.firstVariadicArg(2));

    /** ioctl with a pointer argument (a raw address); the result or -errno. */
    static int ioctl(int fd, long request, long argAddress) {
        MemorySegment err = scratch().errno;
        int r;
        try {
            r = (int) IOCTL.invokeExact(err, fd, request, argAddress);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return r < 0 ? -errno(err) : r;
    }

    /** Writes a struct sockaddr_in (16 bytes) for an IPv4 address in host byte order. */
    static void sockaddrIn(MemorySegment sa, long offset, int addr, int port) {
        sa.set(ValueLayout.JAVA_SHORT_UNALIGNED, offset, (short) Sockets.AF_INET);
        sa.set(NET_SHORT, offset + 2, (short) port);
        sa.set(NET_INT, offset + 4, addr);
        sa.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + 8, 0L);
    }

    /** Writes a struct sockaddr_in6 (28 bytes) for the IPv6 address hi:lo (network order halves). */
    static void sockaddrIn6(MemorySegment sa, long offset, long hi, long lo, int port) {
        sa.set(ValueLayout.JAVA_SHORT_UNALIGNED, offset, (short) Sockets.AF_INET6);
        sa.set(NET_SHORT, offset + 2, (short) port);
        sa.set(ValueLayout.JAVA_INT_UNALIGNED, offset + 4, 0);           // flow info
        sa.set(NET_LONG, offset + 8, hi);
        sa.set(NET_LONG, offset + 16, lo);
        sa.set(ValueLayout.JAVA_INT_UNALIGNED, offset + 24, 0);          // scope id
    }

    /** Downcall for a call that cannot fail (getpid) or whose failure is not reported via errno. */
    static MethodHandle downcallNoErrno(String name, FunctionDescriptor fd) {
        return lazily(name, fd.toMethodType(), () -> LINKER.downcallHandle(find(name), fd));
    }

    static MemorySegment find(String name) {
        return LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc symbol not found: " + name));
    }

    static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    /**
     * Address of {@code buf[off, off+len)} for passing as a raw pointer. Checks bounds and liveness so
     * that a raw address cannot reach outside the segment; callers pass native segments only.
     */
    static long address(MemorySegment buf, long off, long len) {
        Objects.checkFromIndexSize(off, len, buf.byteSize());
        if (!buf.scope().isAlive()) {
            throw new IllegalStateException("Already closed");
        }
        return buf.address() + off;
    }

    /** Downcalls throw Throwable only for programming errors; pass those on unchecked. */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }

    /** Per-thread scratch: errno capture plus small argument structs reused by every call. */
    static final class Scratch {
        final MemorySegment errno;
        /** two struct iovec */
        final MemorySegment iov;
        /** struct sockaddr_in or struct sockaddr_in6 */
        final MemorySegment sockaddr;
        /** socklen_t / int out-parameter */
        final MemorySegment len;
        /** int option value / ioctl result */
        final MemorySegment value;

        private Scratch() {
            // Auto arena: freed when the owning thread (and so this object) is gone.
            Arena arena = Arena.ofAuto();
            errno = arena.allocate(CAPTURE_LAYOUT);
            iov = arena.allocate(32, 8);
            sockaddr = arena.allocate(28, 8);
            len = arena.allocate(4, 4);
            value = arena.allocate(8, 8);
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    static Scratch scratch() {
        return SCRATCH.get();
    }
}
