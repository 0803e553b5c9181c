package io.jslirp.stack;

import io.jslirp.wire.Ipv4;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

class ReassemblerTest {
    private static final int SRC = Ipv4.parse("10.0.2.100");
    private static final int DST = Ipv4.parse("10.0.2.2");

    private final Counters counters = new Counters();
    private final Reassembler reassembler = new Reassembler(counters);
    private final Arena arena = Arena.ofAuto();

    private static byte payloadByte(int i) {
        return (byte) (i * 31 + 7);
    }

    /** A fragment (IPv4 header + data) carrying bytes [at, at+len) of the datagram with the given id. */
    private MemorySegment fragment(int id, int at, int len, boolean more) {
        MemorySegment f = arena.allocate(20 + len);
        Ipv4.write(f, 0, 20 + len, id, (at / 8) | (more ? Ipv4.MORE_FRAGMENTS : 0), 64, Ipv4.PROTO_UDP, SRC, DST);
        for (int i = 0; i < len; i++) f.set(ValueLayout.JAVA_BYTE, 20 + i, payloadByte(at + i));
        return f;
    }

    private static void assertPayload(MemorySegment whole, int length) {
        for (int i = 0; i < length; i++) {
            assertThat(whole.get(ValueLayout.JAVA_BYTE, Reassembler.PAYLOAD_OFFSET + i)).as("byte %d", i).isEqualTo(payloadByte(i));
        }
    }

    @Test
    void reassemblesFragmentsInAnyOrderWithOverlaps() {
        assertThat(reassembler.add(fragment(1, 2960, 1040, false), 0, 0)).isNull();
        assertThat(reassembler.add(fragment(1, 0, 1480, true), 0, 0)).isNull();
        assertThat(reassembler.add(fragment(1, 1480, 800, true), 0, 0)).isNull();
        assertThat(reassembler.add(fragment(1, 1000, 1480, true), 0, 0)).isNull(); // overlaps both neighbours
        MemorySegment whole = reassembler.add(fragment(1, 2480, 480, true), 0, 0);
        assertThat(whole).isNotNull();
        assertThat(reassembler.completedLength()).isEqualTo(4000);
        assertPayload(whole, 4000);
    }

    @Test
    void keepsDatagramsWithDifferentIdsApart() {
        reassembler.add(fragment(1, 0, 8, true), 0, 0);
        reassembler.add(fragment(2, 0, 8, true), 0, 0);
        assertThat(reassembler.add(fragment(2, 8, 8, false), 0, 0)).isNotNull();
        assertThat(reassembler.completedLength()).isEqualTo(16);
        assertThat(reassembler.add(fragment(1, 8, 4, false), 0, 0)).isNotNull();
        assertThat(reassembler.completedLength()).isEqualTo(12);
    }

    @Test
    void refusesDatagramsBeyond64KiBAndMisalignedMiddlePieces() {
        assertThat(reassembler.add(fragment(3, 65528, 100, false), 0, 0)).isNull(); // ping of death
        assertThat(reassembler.add(fragment(4, 0, 13, true), 0, 0)).isNull();       // not a multiple of 8
        assertThat(counters.malformed).isEqualTo(2);
    }

    @Test
    void boundedSlotsAndTimeoutsDropIncompleteDatagrams() {
        for (int id = 0; id < Reassembler.SLOTS + 4; id++) reassembler.add(fragment(id, 0, 8, true), 0, id);
        assertThat(counters.reassemblyDropped).isEqualTo(4);
        // The oldest gave way: its second half can no longer complete it.
        assertThat(reassembler.add(fragment(0, 8, 8, false), 0, 100)).isNull();
        // Past the timeout every stale datagram is dropped.
        reassembler.add(fragment(999, 0, 8, true), 0, Reassembler.TIMEOUT_NANOS + 1000);
        assertThat(counters.reassemblyDropped).isGreaterThanOrEqualTo(4 + Reassembler.SLOTS - 1);
    }
}
