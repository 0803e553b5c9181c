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

/** Guest to host: one in-order 1448-byte segment on an established connection, the host taking it, and the ACK. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class TcpReceiveBench {
    private Established flow;
    private MemorySegment segment;
    private final TcpSegment read = new TcpSegment();
    private int seq;

    @Setup
    public void setup() {
        flow = new Established();
        seq = Established.GUEST_ISN + 1;
        segment = Established.fromGuest(Tcp.ACK | Tcp.PSH, seq, Established.ISS + 1, 0xffff, Established.FULL_PAYLOAD);
    }

    /**
     * The segment read into the view (as the stack's input does, without its checksum), onSegment
     * (the iteration's first in-order segment: written to the host socket, which takes it all),
     * flush (one ACK built by Stack).
     */
    @Benchmark
    public int receiveSegment() {
        TcpConnection conn = flow.conn;
        Bytes.u32(segment, Established.TCP_OFFSET + 4, seq); // the next in-order sequence number
        conn.onSegment(Established.read(segment, read), Established.TAKES_ALL, Established.NOW);
        conn.flush(Established.NOW);
        seq += Established.FULL_PAYLOAD;
        return conn.toHost().size();
    }
}
