package io.jslirp.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.util.BufferPool;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpHeader;
import io.jslirp.wire.TcpOptions;
import io.jslirp.wire.TcpSegment;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * What one connection costs in heap: the bytes allocated for its life (the guest's SYN to its
 * close, with a few segments between), so that the parts it is made of stay cheap to create for a
 * burst of thousands of connections. Counted with the thread's allocation counter, not timed.
 * Run as a program (main) it also keeps many established connections and prints the class
 * histogram of what they retain.
 */
class ConnectionFootprintTest {
    /** A generous bound: what a connection's life allocates now, and room for small changes. */
    private static final long MAX_BYTES_PER_CONNECTION = 580;

    private static final int IRS = 1000, ISS = 5000;
    private static final long NOW = TcpHarness.START;

    private final TcpConfig config = TcpConfig.forMtu(1500);
    private final TcpContext context = new TcpContext(config, new BufferPool(config.bufferBudget()), new NullOutput());
    private final QuietHost host = new QuietHost();
    private final TcpOptions synOptions;
    private final TcpSegment handshakeAck, data, fin, finAck;

    ConnectionFootprintTest() {
        synOptions = TcpHarness.read(TcpHarness.seg(Tcp.SYN).seq(IRS).window(64240).mss(1460).windowScale(7)
                .timestamps(100, 0).sackPermitted()).options();
        handshakeAck = TcpHarness.read(TcpHarness.seg(Tcp.ACK).seq(IRS + 1).ack(ISS + 1).window(1000).timestamps(101, 1));
        data = TcpHarness.read(TcpHarness.seg(Tcp.ACK | Tcp.PSH).seq(IRS + 1).ack(ISS + 1).window(1000).timestamps(102, 1)
                .payload(new byte[100]));
        fin = TcpHarness.read(TcpHarness.seg(Tcp.ACK | Tcp.FIN).seq(IRS + 101).ack(ISS + 1).window(1000).timestamps(103, 1));
        finAck = TcpHarness.read(TcpHarness.seg(Tcp.ACK).seq(IRS + 102).ack(ISS + 2).window(1000).timestamps(104, 1));
    }

    /** A connection through the handshake, with one segment of data from the guest acknowledged. */
    private TcpConnection open(int i) {
        TcpConnection c = new TcpConnection(new FlowAddresses(TcpHarness.GUEST + (i >>> 16), i & 0xffff, TcpHarness.REMOTE,
                TcpHarness.REMOTE_PORT), new GuestSyn(IRS, 64240, synOptions), ISS, context, host);
        settle(c, c.hostConnected(NOW));
        settle(c, c.onSegment(handshakeAck, host, NOW));
        settle(c, c.flush(NOW));
        settle(c, c.onSegment(data, host, NOW));
        settle(c, c.flush(NOW));
        return c;
    }

    /** The guest closes, the host follows, the guest acknowledges our FIN: the connection is over. */
    private boolean close(TcpConnection c) {
        settle(c, c.onSegment(fin, host, NOW));
        settle(c, c.flush(NOW));
        c.hostShutdown();
        host.ended = true;
        settle(c, c.flush(NOW));
        host.ended = false;
        return settle(c, c.onSegment(finAck, host, NOW)).closed();
    }

    private static Outcome settle(TcpConnection c, Outcome r) {
        if (r.sendNow()) c.sendNow();
        return r;
    }

    /** Bytes one connection's life allocates, averaged over n of them after a warm-up. */
    private long bytesPerConnection(int n) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < n; i++) assertThat(close(open(i))).isTrue();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < n; i++) {
            if (!close(open(i))) throw new AssertionError("connection " + i + " did not close");
        }
        return (threads.getCurrentThreadAllocatedBytes() - before) / n;
    }

    @Test
    void aConnectionsLifeAllocatesLittle() {
        long perConnection = bytesPerConnection(20_000);
        assertThat(perConnection).as("bytes allocated per connection").isLessThanOrEqualTo(MAX_BYTES_PER_CONNECTION);
    }

    /** Prints the bytes a connection's life allocates, and the histogram of 10,000 established connections. */
    public static void main(String[] args) throws Exception {
        ConnectionFootprintTest t = new ConnectionFootprintTest();
        System.out.println("allocated bytes per connection (open to close): " + t.bytesPerConnection(50_000));
        TcpConnection[] kept = new TcpConnection[10_000];
        for (int i = 0; i < kept.length; i++) kept[i] = t.open(i);
        long pid = ProcessHandle.current().pid();
        Process p = new ProcessBuilder("jcmd", Long.toString(pid), "GC.class_histogram").redirectErrorStream(true).start();
        String histogram = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        long total = 0;
        for (String line : histogram.split("\n")) {
            if (line.contains("io.jslirp.tcp") || line.contains("io.jslirp.util.RingBuffer")) {
                System.out.println(line);
                String[] f = line.trim().split("\\s+");
                if (Long.parseLong(f[1]) >= kept.length) total += Long.parseLong(f[2]);
            }
        }
        System.out.println("retained per connection (classes with an instance per connection): " + total / kept.length);
        System.out.println(kept.length + " " + kept[kept.length - 1].state());
    }

    /** Takes segments and forgets them. */
    private static final class NullOutput implements TcpOutput {
        private final MemorySegment frame = Arena.ofAuto().allocate(TcpHarness.FakeOutput.TCP_OFFSET + 65536 + 64);
        private final TcpHeader header = new TcpHeader();

        @Override
        public MemorySegment frame() {
            return frame;
        }

        @Override
        public long tcpOffset() {
            return TcpHarness.FakeOutput.TCP_OFFSET;
        }

        @Override
        public TcpHeader tcpHeader() {
            return header;
        }

        @Override
        public void sendTcp(int source, int destination, int tcpLength, int segmentSize) {
        }
    }

    /** A host socket that takes every byte and has none to send until its stream ends. */
    private static final class QuietHost implements HostStream, HostSink {
        private final MemorySegment memory = Arena.ofAuto().allocate(16);
        boolean ended;

        @Override
        public int peek(int skip, int length) {
            return ended ? END : 0;
        }

        @Override
        public MemorySegment memory() {
            return memory;
        }

        @Override
        public long offset() {
            return 0;
        }

        @Override
        public void acknowledged(int n) {
        }

        @Override
        public int write(MemorySegment data, long offset, int length) {
            return length;
        }
    }
}
