package io.jslirp.bench;

import io.jslirp.stack.Counters;
import io.jslirp.stack.Stack;
import io.jslirp.stack.Transport;
import io.jslirp.wire.Tcp;
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

/** Stack.receive of a full-size guest TCP data frame: the link and IP demux down to a Transport that only counts bytes. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class StackReceiveBench {
    private Stack stack;
    private MemorySegment frame;
    private int length;
    private long tcpBytes;

    @Setup
    public void setup() {
        stack = new Stack(Established.NETWORK, (f, n) -> true, new Counters());
        stack.setTransport(new Transport() {
            @Override
            public void tcp(io.jslirp.wire.TcpSegment segment) {
                tcpBytes += segment.length();
            }

            @Override
            public void udp(io.jslirp.wire.UdpDatagram datagram) {
                throw new IllegalStateException("the benchmark sends TCP only");
            }

            @Override
            public void icmpEcho(io.jslirp.wire.IcmpEcho echo) {
                throw new IllegalStateException("the benchmark sends TCP only");
            }
        });
        frame = Established.fromGuest(Tcp.ACK | Tcp.PSH, 1, 1, 0xffff, Established.FULL_PAYLOAD);
        length = (int) frame.byteSize();
    }

    /** One frame in; returns the TCP bytes handed to the transport so far. */
    @Benchmark
    public long receive() {
        stack.receive(frame, length);
        return tcpBytes;
    }
}
