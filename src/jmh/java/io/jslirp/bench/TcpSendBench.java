package io.jslirp.bench;

import io.jslirp.tcp.TcpConnection;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpSegment;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/** Host to guest: 64 KiB of host data sent as 46 full-size segments built by Stack, then acknowledged by the guest. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class TcpSendBench {
    private static final int CHUNK = 64 << 10;

    private Established flow;
    private MemorySegment ack;
    private final TcpSegment read = new TcpSegment();
    private int acked;

    @Setup
    public void setup() {
        flow = new Established();
        acked = Established.ISS + 1;
        ack = Established.fromGuest(Tcp.ACK, Established.GUEST_ISN + 1, acked, 0xffff, 0);
    }

    /**
     * hostReadable (new host data; its peek is not a syscall here), flush (the segments), one
     * cumulative guest ACK (read into the view as the stack's input does, without its checksum).
     */
    @Benchmark
    public int send64KiB() {
        TcpConnection conn = flow.conn;
        flow.host.add(CHUNK);
        conn.hostReadable();
        conn.flush(Established.NOW);
        acked += CHUNK;
        Bytes.u32(ack, Established.TCP_OFFSET + 8, acked); // the acknowledgment number
        conn.onSegment(Established.read(ack, read), Established.TAKES_ALL, Established.NOW);
        return conn.unacknowledged();
    }
}
