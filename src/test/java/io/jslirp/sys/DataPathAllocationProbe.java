package io.jslirp.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

/**
 * Run in a JVM of its own, with the launcher's JVM options, by {@link LibcTest}: the data path's
 * calls on a TCP pair, made from a call chain as deep as the packet path's (Stack.receive ...
 * TcpFlow.writeToHost → SystemSockets.write → Libc.write), in windows of 10,000 rounds (80,000
 * calls), until the JIT has settled (no compilation in the last five windows, after fifteen at
 * least); prints the most bytes one of those five windows allocated ("steady N after W windows").
 * Steady state is what counts, and not the least of all windows: the JDK slices the errno capture
 * segment on every downcall (SharedUtils.checkCaptureSegment, 40 bytes), which C2 removes only
 * where it compiles the whole downcall chain in one piece (Native.DONT_INLINE); a shallow
 * compilation of the calls can come first, allocate nothing for a few windows, and be replaced by
 * the deep one, which allocates in every window after.
 *
 * <p>Then, with the downcalls compiled, that errno still comes back right, and is this call's:
 * failures of different kinds in turn with successes between them, a write to a closed descriptor
 * (EBADF), a read of an empty non-blocking socket (EAGAIN), a connect to a closed loopback port
 * (ECONNREFUSED); prints "errno ok" or the first wrong result.
 */
public final class DataPathAllocationProbe {
    private DataPathAllocationProbe() {}

    private static final int CLOSED_FD = 1000;
    /** At least this many windows, and then until the JIT has compiled nothing in the last QUIET; the most bytes of those. */
    private static final int MIN_WINDOWS = 15, QUIET = 5, MAX_WINDOWS = 300;

    private static TcpPair p;
    private static MemorySegment buf, buf2;
    private static final int[] ADDR_PORT = new int[2];

    public static void main(String[] args) throws Exception {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (TcpPair pair = new TcpPair(); Arena arena = Arena.ofConfined()) {
            p = pair;
            buf = arena.allocate(256);
            buf2 = arena.allocate(256);
            long tid = Thread.currentThread().threadId();
            var jit = ManagementFactory.getCompilationMXBean();
            long[] last = new long[QUIET];
            int window = 0, quiet = 0;
            while (window < MIN_WINDOWS || quiet < QUIET) {
                if (window == MAX_WINDOWS) {
                    System.out.println("the JIT did not settle in " + MAX_WINDOWS + " windows");
                    return;
                }
                long compiled = jit.getTotalCompilationTime();
                long before = threads.getThreadAllocatedBytes(tid);
                for (int i = 0; i < 10_000; i++) d0(i);
                last[window++ % QUIET] = threads.getThreadAllocatedBytes(tid) - before;
                quiet = jit.getTotalCompilationTime() == compiled ? quiet + 1 : 0;
            }
            System.out.println("steady " + java.util.Arrays.stream(last).max().orElseThrow() + " after " + window + " windows");
            System.out.println(errnoCheck());
        }
    }

    // Ten frames, each of them inlined, above the calls: as deep as the packet path puts them.
    private static int d0(int i) { return d1(i + 1); }
    private static int d1(int i) { return d2(i ^ 2); }
    private static int d2(int i) { return d3(i + 3); }
    private static int d3(int i) { return d4(i ^ 4); }
    private static int d4(int i) { return d5(i + 5); }
    private static int d5(int i) { return d6(i ^ 6); }
    private static int d6(int i) { return d7(i + 7); }
    private static int d7(int i) { return d8(i ^ 8); }
    private static int d8(int i) { return d9(i + 9); }
    private static int d9(int i) { return round(i & 7); }

    private static int round(int off) {
        int r = Libc.write(p.client, buf, off, 100);
        r += (int) Libc.writev2(p.client, buf, 0, 50, buf2, 10, 50);
        r += Sockets.send(p.client, buf, 0, 10, 0);
        r += Libc.read(p.server, buf, 0, 256);
        r += (int) Libc.readv2(p.server, buf, 0, 100, buf2, 0, 100);
        r += Sockets.recv(p.server, buf, 0, 256, 0);
        r += Sockets.ioctlInt(p.server, Sockets.SIOCINQ);
        r += Sockets.recvFrom4(p.server, buf, 0, 1, ADDR_PORT);
        return r;
    }

    private static String errnoCheck() throws Exception {
        // A descriptor no other thread of this JVM can be given meanwhile (each open takes the lowest free one).
        int devNull = Libc.open("/dev/null", Libc.O_WRONLY | Libc.O_CLOEXEC);
        Libc.dup2(devNull, CLOSED_FD);
        if (Libc.close(CLOSED_FD) != 0) return "close " + CLOSED_FD + " failed";
        try {
            while (Libc.read(p.server, buf, 0, 256) > 0) {
                // drain what the windows left
            }
            for (int i = 0; i < 20_000; i++) {
                int r = Libc.write(CLOSED_FD, buf, 0, 100);
                if (r != -Errno.EBADF) return "write to a closed descriptor: " + r + ", not -EBADF";
                r = Libc.write(devNull, buf, 0, 100);
                if (r != 100) return "write to /dev/null: " + r;
                r = Libc.read(p.server, buf, 0, 256);
                if (r != -Errno.EAGAIN) return "read of an empty socket: " + r + ", not -EAGAIN";
                r = (int) Libc.writev2(CLOSED_FD, buf, 0, 50, buf2, 0, 50);
                if (r != -Errno.EBADF) return "writev to a closed descriptor: " + r + ", not -EBADF";
            }
            int port;
            try (var s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            }
            for (int i = 0; i < 200; i++) {
                String refused = connectRefused(port);
                if (refused != null) return refused;
                int r = Libc.write(CLOSED_FD, buf, 0, 100);
                if (r != -Errno.EBADF) return "write to a closed descriptor after a connect: " + r + ", not -EBADF";
            }
            return "errno ok";
        } finally {
            Libc.close(devNull);
        }
    }

    private static String connectRefused(int port) {
        int fd = Sockets.tcp4();
        try (Epoll ep = new Epoll(1)) {
            int r = Sockets.connect4(fd, TcpPair.LOOPBACK, port);
            if (r == -Errno.EINPROGRESS) {
                ep.add(fd, Epoll.OUT);
                if (ep.wait(5000) != 1) return "connect to a closed port: no event";
                r = -Sockets.soError(fd);
            }
            return r == -Errno.ECONNREFUSED ? null : "connect to a closed port: " + r + ", not -ECONNREFUSED";
        } finally {
            Libc.close(fd);
        }
    }
}
