package io.jslirp.stack;

import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
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
    private final IpHeader header = new IpHeader();

    private static byte payloadByte(int i) {
        return (byte) (i * 31 + 7);
    }

    /** A fragment (IPv4 header + data) carrying bytes [at, at+len) of the datagram with the given id. */
    private MemorySegment fragment(int id, int at, int len, boolean more) {
        MemorySegment f = arena.allocate(20 + len);
        Ipv4.write(f, 0, new IpHeader().source4(SRC).destination4(DST).protocol(Ipv4.PROTO_UDP).ttl(64).id(id)
                .payloadLength(len).fragment(at, more));
        for (int i = 0; i < len; i++) f.set(ValueLayout.JAVA_BYTE, 20 + i, payloadByte(at + i));
        return f;
    }

    /** Adds a fragment as the stack does: its header read by the IPv4 codec. */
    private MemorySegment add(MemorySegment f, long now) {
        assertThat(Ipv4.read(f, 0, (int) f.byteSize(), header)).isNull();
        return reassembler.add(IpVersion.V4, f, header.headerLength(), header, now);
    }

    private static void assertPayload(MemorySegment whole, int length) {
        for (int i = 0; i < length; i++) {
            assertThat(whole.get(ValueLayout.JAVA_BYTE, Reassembler.PAYLOAD_OFFSET + i)).as("byte %d", i).isEqualTo(payloadByte(i));
        }
    }

    @Test
    void reassemblesFragmentsInAnyOrderWithOverlaps() {
        assertThat(add(fragment(1, 2960, 1040, false), 0)).isNull();
        assertThat(add(fragment(1, 0, 1480, true), 0)).isNull();
        assertThat(add(fragment(1, 1480, 800, true), 0)).isNull();
        assertThat(add(fragment(1, 1000, 1480, true), 0)).isNull(); // overlaps both neighbours
        MemorySegment whole = add(fragment(1, 2480, 480, true), 0);
        assertThat(whole).isNotNull();
        assertThat(reassembler.completedLength()).isEqualTo(4000);
        assertThat(reassembler.completedProtocol()).isEqualTo(Ipv4.PROTO_UDP);
        assertPayload(whole, 4000);
    }

    @Test
    void keepsDatagramsWithDifferentIdsApart() {
        add(fragment(1, 0, 8, true), 0);
        add(fragment(2, 0, 8, true), 0);
        assertThat(add(fragment(2, 8, 8, false), 0)).isNotNull();
        assertThat(reassembler.completedLength()).isEqualTo(16);
        assertThat(add(fragment(1, 8, 4, false), 0)).isNotNull();
        assertThat(reassembler.completedLength()).isEqualTo(12);
    }

    @Test
    void refusesDatagramsBeyond64KiBAndMisalignedMiddlePieces() {
        assertThat(add(fragment(3, 65528, 100, false), 0)).isNull(); // ping of death
        assertThat(add(fragment(4, 0, 13, true), 0)).isNull();       // not a multiple of 8
        assertThat(counters.malformed).isEqualTo(2);
    }

    @Test
    void boundedSlotsAndTimeoutsDropIncompleteDatagrams() {
        for (int id = 0; id < Reassembler.SLOTS + 4; id++) add(fragment(id, 0, 8, true), id);
        assertThat(counters.reassemblyDropped).isEqualTo(4);
        // The oldest gave way: its second half can no longer complete it.
        assertThat(add(fragment(0, 8, 8, false), 100)).isNull();
        // Past the timeout every stale datagram is dropped.
        add(fragment(999, 0, 8, true), Reassembler.TIMEOUT_NANOS + 1000);
        assertThat(counters.reassemblyDropped).isGreaterThanOrEqualTo(4 + Reassembler.SLOTS - 1);
    }
}
