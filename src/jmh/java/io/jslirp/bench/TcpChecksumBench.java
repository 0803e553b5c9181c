package io.jslirp.bench;

import io.jslirp.wire.Checksum;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tcp;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
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

/** Tcp.fillChecksum (with the IPv4 pseudo-header) of a full-size segment (1480 bytes: header with timestamps and 1448 bytes of data) in its frame. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class TcpChecksumBench {
    private MemorySegment frame;
    private int tcpLength;

    @Setup
    public void setup() {
        frame = Established.fromGuest(Tcp.ACK | Tcp.PSH, 1, 1, 0xffff, Established.FULL_PAYLOAD);
        tcpLength = Established.tcpLength(frame);
    }

    /** Pseudo-header, header and payload summed; the result stored in the header. Compiled on its own, as ChecksumBench. */
    @Benchmark
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    public void fillChecksum4() {
        Tcp.fillChecksum(frame, Established.TCP_OFFSET, tcpLength,
                Checksum.pseudoHeader4(Established.GUEST, Established.REMOTE, Ipv4.PROTO_TCP, tcpLength));
    }
}
