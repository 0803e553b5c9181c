package io.jslirp.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Shared FFM plumbing: the linker, system calls with errno capture, and per-thread scratch memory
 * so that data-path calls allocate nothing.
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

    /**
     * Every system call goes through libc's syscall(2), its number then its arguments each as a
     * long: one downcall serves them all, where the JDK spins a stub of its own, for milliseconds
     * at start-up, for each C function signature. On the ABIs jslirp runs on (x86-64 System V,
     * AArch64 Linux) an int or pointer argument goes in the register a long would, the kernel
     * ignores the arguments a call does not take, and its result comes back as a long (an int one
     * sign-extended).
     */
    private static final MethodHandle SYSCALL = LINKER.downcallHandle(find("syscall"),
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
            CAPTURE_ERRNO, Linker.Option.firstVariadicArg(1));

    /**
     * As {@link #SYSCALL} with the second argument a buffer that may be on the heap: a critical
     * call, which holds up the GC for its duration. Linked when first used: jslirp's own buffers
     * are native.
     */
    private static final class Heap {
        static final MethodHandle SYSCALL = LINKER.downcallHandle(find("syscall"),
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                CAPTURE_ERRNO, Linker.Option.firstVariadicArg(1), Linker.Option.critical(true));
    }

    /** A system call's number: x86_64 on x86-64, else aarch64. */
    static long nr(int x86_64, int aarch64) {
        return X86_64 ? x86_64 : aarch64;
    }

    static long syscall(long nr, MemorySegment err) {
        return syscall(nr, err, 0, 0, 0, 0, 0, 0);
    }

    static long syscall(long nr, MemorySegment err, long a) {
        return syscall(nr, err, a, 0, 0, 0, 0, 0);
    }

    static long syscall(long nr, MemorySegment err, long a, long b) {
        return syscall(nr, err, a, b, 0, 0, 0, 0);
    }

    static long syscall(long nr, MemorySegment err, long a, long b, long c) {
        return syscall(nr, err, a, b, c, 0, 0, 0);
    }

    static long syscall(long nr, MemorySegment err, long a, long b, long c, long d) {
        return syscall(nr, err, a, b, c, d, 0, 0);
    }

    static long syscall(long nr, MemorySegment err, long a, long b, long c, long d, long e) {
        return syscall(nr, err, a, b, c, d, e, 0);
    }

    /** System call nr: its result, or -1 with errno in err. */
    static long syscall(long nr, MemorySegment err, long a, long b, long c, long d, long e, long f) {
        return downcall(nr, err, a, b, c, d, e, f);
    }

    /**
     * The JVM option that keeps the two {@code downcall} methods out of their callers' compilations
     * (the launcher passes it, after {@code -XX:CompileCommand=quiet}). The JDK slices the errno
     * capture segment on every call (SharedUtils.checkCaptureSegment: a 40-byte
     * NativeMemorySegmentImpl) and C2 removes that object only where it inlines the whole chain
     * down to Object's constructor, nine counted levels below the downcall (asSlice, dup, the
     * constructors; the method handles' lambda forms do not count). Where the call sits as deep
     * as the packet path's (Stack.receive ... TcpFlow.writeToHost → Libc.write, ten levels) that
     * is past C2's MaxInlineLevel (15): "inlining too deep" at the constructors, the slice
     * escapes, and every system call allocates. Compiled on its own, a downcall is the root of a
     * shallow tree and allocates nothing, whoever calls it; the price is one ordinary call per
     * system call. (Not the capture segment's scope: its session's acquire is inlined, a no-op.)
     */
    static final String DONT_INLINE = "dontinline,io.jslirp.sys.Native::downcall";

    /** The compilation boundary of every system call ({@link #DONT_INLINE}). */
    private static long downcall(long nr, MemorySegment err, long a, long b, long c, long d, long e, long f) {
        try {
            return (long) SYSCALL.invokeExact(err, nr, a, b, c, d, e, f);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static long syscall(long nr, MemorySegment err, long a, MemorySegment buf, long c) {
        return syscall(nr, err, a, buf, c, 0, 0, 0);
    }

    /** System call nr on a buffer (native or heap): its result, or -1 with errno in err. */
    static long syscall(long nr, MemorySegment err, long a, MemorySegment buf, long c, long d, long e, long f) {
        return downcall(nr, err, a, buf, c, d, e, f);
    }

    /** As the other downcall, through {@link Heap#SYSCALL}. */
    private static long downcall(long nr, MemorySegment err, long a, MemorySegment buf, long c, long d, long e, long f) {
        try {
            return (long) Heap.SYSCALL.invokeExact(err, nr, a, buf, c, d, e, f);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final long IOCTL = nr(16, 29);

    /** ioctl with a pointer argument (a raw address); the result or -errno. */
    static int ioctl(int fd, long request, long argAddress) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(IOCTL, err, fd, request, argAddress);
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

    /** A downcall to the C library's function name (not the system call: for what the library does around it), errno captured. */
    static MethodHandle libc(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(find(name), descriptor, CAPTURE_ERRNO);
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
