package io.jslirp.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;

/**
 * Run in a JVM of its own by {@link LibcTest}: the data path's calls on a TCP pair in windows of
 * 10,000 rounds (80,000 calls), until a window allocates under 1 KiB or 60 windows have run;
 * prints the least bytes one window allocated. Steady state is what counts: the JDK slices the
 * errno capture segment on every downcall (SharedUtils.checkCaptureSegment, 40 bytes) until C2
 * compiles the caller and removes it, and on a busy machine that can take a while.
 */
public final class DataPathAllocationProbe {
    private DataPathAllocationProbe() {}

    public static void main(String[] args) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (TcpPair p = new TcpPair(); Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(256);
            MemorySegment buf2 = arena.allocate(256);
            int[] addrPort = new int[2];
            Runnable round = () -> {
                Libc.write(p.client, buf, 0, 100);
                Libc.writev2(p.client, buf, 0, 50, buf2, 10, 50);
                Sockets.send(p.client, buf, 0, 10, 0);
                Libc.read(p.server, buf, 0, 256);
                Libc.readv2(p.server, buf, 0, 100, buf2, 0, 100);
                Sockets.recv(p.server, buf, 0, 256, 0);
                Sockets.ioctlInt(p.server, Sockets.SIOCINQ);
                Sockets.recvFrom4(p.server, buf, 0, 1, addrPort);
            };
            long tid = Thread.currentThread().threadId();
            long least = Long.MAX_VALUE;
            for (int window = 0; window < 60 && least >= 1024; window++) {
                long before = threads.getThreadAllocatedBytes(tid);
                for (int i = 0; i < 10_000; i++) round.run();
                least = Math.min(least, threads.getThreadAllocatedBytes(tid) - before);
            }
            System.out.println(least);
        }
    }
}
