package io.jslirp.bench;

import io.jslirp.wire.Checksum;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/** The Internet checksum over size bytes of native memory; size / (ns/op) is GB/s. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@State(Scope.Thread)
public class ChecksumBench {
    @Param({"64", "1500", "65536"})
    int size;

    private MemorySegment data;

    @Setup
    public void setup() {
        byte[] bytes = new byte[size];
        new Random(42).nextBytes(bytes);
        data = Arena.ofAuto().allocate(size, 64).copyFrom(MemorySegment.ofArray(bytes));
    }

    /**
     * Checksum.of: sum, fold and complement. Compiled on its own: inlined into JMH's measurement
     * loop, C2's code for the summing loop changes 2-3x in speed between warmup and measurement.
     */
    @Benchmark
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    public int checksum() {
        return Checksum.of(data, 0, size);
    }
}
