package io.jslirp.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcapWriterTest {
    @TempDir
    Path tmp;

    private static MemorySegment frame(int length, int fill) {
        byte[] b = new byte[length];
        java.util.Arrays.fill(b, (byte) fill);
        return MemorySegment.ofArray(b);
    }

    @Test
    void writesTheClassicHeaderForEthernetWithMicrosecondTimestamps() throws Exception {
        Path file = tmp.resolve("a.pcap");
        PcapWriter.open(file, 1 << 20).close();
        byte[] bytes = Files.readAllBytes(file);
        assertThat(bytes).containsExactly(
                0xd4, 0xc3, 0xb2, 0xa1, // magic, little-endian: microsecond timestamps
                2, 0, 4, 0, // version 2.4
                0, 0, 0, 0, // thiszone
                0, 0, 0, 0, // sigfigs
                0, 0, 4, 0, // snaplen 262144
                1, 0, 0, 0); // LINKTYPE_ETHERNET
    }

    @Test
    void writesEachFrameWithItsLengthsAndATimestampOfNow() throws Exception {
        Path file = tmp.resolve("b.pcap");
        long before = System.currentTimeMillis() / 1000;
        try (PcapWriter w = PcapWriter.open(file, 1 << 20)) {
            w.write(frame(60, 0xab), 60);
            w.write(frame(70000, 0xcd), 65550); // a TSO frame larger than the MTU, kept whole
        }
        long after = System.currentTimeMillis() / 1000;
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.limit()).isEqualTo(24 + 16 + 60 + 16 + 65550);
        b.position(24);
        long seconds = Integer.toUnsignedLong(b.getInt());
        assertThat(seconds).isBetween(before, after);
        assertThat(b.getInt()).isBetween(0, 999_999);
        assertThat(b.getInt()).as("captured").isEqualTo(60);
        assertThat(b.getInt()).as("original").isEqualTo(60);
        assertThat(b.get(b.position())).isEqualTo((byte) 0xab);
        b.position(b.position() + 60 + 8);
        assertThat(b.getInt()).isEqualTo(65550);
        assertThat(b.getInt()).isEqualTo(65550);
        assertThat(b.get(b.limit() - 1)).isEqualTo((byte) 0xcd);
    }

    @Test
    void buffersUntilWrittenOut() throws Exception {
        Path file = tmp.resolve("d.pcap");
        try (PcapWriter w = PcapWriter.open(file, 1 << 20)) {
            w.write(frame(100, 1), 100);
            assertThat(Files.size(file)).as("buffered").isEqualTo(24);
            w.writeOut();
            assertThat(Files.size(file)).isEqualTo(24 + 16 + 100);
        }
    }

    @Test
    void stopsAtTheSizeLimitAndStaysReadable() throws Exception {
        Path file = tmp.resolve("c.pcap");
        try (PcapWriter w = PcapWriter.open(file, 24 + 3 * (16 + 100) + 50)) {
            for (int i = 0; i < 10; i++) w.write(frame(100, i), 100);
        }
        assertThat(Files.size(file)).isEqualTo(24 + 3 * (16 + 100));
    }
}
