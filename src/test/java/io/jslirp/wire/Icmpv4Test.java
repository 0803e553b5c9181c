package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Segs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class Icmpv4Test {

    @Property(tries = 300)
    void fillChecksumMatchesReferenceAndVerifies(@ForAll Kind kind, @ForAll @IntRange(max = 7) int off,
                                                 @ForAll @Size(min = 8, max = 120) byte[] message) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.allocate(kind, arena, off + message.length);
            MemorySegment.copy(MemorySegment.ofArray(message), 0, s, off, message.length);
            Icmp.fillChecksum(s, off, message.length, 0);

            byte[] zeroed = message.clone();
            zeroed[2] = 0;
            zeroed[3] = 0;
            byte[] out = Segs.bytes(s, off, message.length);
            assertThat(Ref.u16(out, 2)).isEqualTo(Ref.checksum(zeroed));
            assertThat(Ref.checksum(out)).isZero();
            assertThat(Icmp.type(s, off)).isEqualTo(message[0] & 0xff);
            assertThat(Icmp.code(s, off)).isEqualTo(message[1] & 0xff);
        }
    }

    @Test
    void echoRequestTurnedIntoReply() {
        // ping id 0x1234 seq 1 payload "abcd", its checksum set by the reference.
        byte[] request = Segs.hex("0800 0000 1234 0001 61626364");
        Ref.put16(request, 2, Ref.checksum(request));
        for (Kind kind : Kind.values()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment s = Segs.of(kind, arena, request);
                assertThat(Icmp.type(s, 0)).isEqualTo(Icmpv4.ECHO_REQUEST);
                assertThat(Icmp.code(s, 0)).isZero();
                Icmp.setType(s, 0, Icmpv4.ECHO_REPLY);
                Icmp.fillChecksum(s, 0, request.length, 0);
                assertThat(Icmp.type(s, 0)).isEqualTo(Icmpv4.ECHO_REPLY);
                byte[] reply = request.clone();
                reply[0] = 0;
                reply[2] = 0;
                reply[3] = 0;
                assertThat(Bytes.u16(s, 2)).isEqualTo(Ref.checksum(reply));
                assertThat(Ref.checksum(Segs.bytes(s))).isZero();
            }
        }
    }
}
