package io.jslirp.bench;

import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpOptions;
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

/** Parsing a full-size guest TCP data frame (1514 bytes, timestamps option): header checks and options. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class FrameParseBench {
    private final TcpOptions options = new TcpOptions();
    private MemorySegment frame;
    private int length;

    @Setup
    public void setup() {
        frame = Established.fromGuest(Tcp.ACK | Tcp.PSH, 1, 1, 0xffff, Established.FULL_PAYLOAD);
        length = (int) frame.byteSize();
    }

    /** The checks Stack.receive makes: Ethernet type, Ipv4.check (with the header checksum), Tcp.check. */
    @Benchmark
    public boolean headerChecks() {
        int ipLength = length - Ethernet.HEADER_LENGTH;
        return Ethernet.type(frame, 0) == Ethernet.TYPE_IPV4
                && Ipv4.check(frame, Ethernet.HEADER_LENGTH, ipLength) == null
                && Tcp.check(frame, Established.TCP_OFFSET, ipLength - Ipv4.headerLength(frame, Ethernet.HEADER_LENGTH)) == null;
    }

    /** Tcp.parseOptions into a reused TcpOptions (the stack parses them within its check of every segment). */
    @Benchmark
    public int parseOptions() {
        Tcp.parseOptions(frame, Established.TCP_OFFSET, options);
        return options.tsVal;
    }
}
