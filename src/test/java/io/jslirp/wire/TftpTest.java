package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TftpTest {
    /** A request as a client puts it on the wire: opcode, then NUL-terminated strings. */
    private static MemorySegment message(int opcode, String... strings) {
        return MemorySegment.ofArray(TftpMessages.of(opcode, strings));
    }

    private static Tftp.Request parse(MemorySegment m) {
        return Tftp.parseRequest(m, 0, (int) m.byteSize());
    }

    @Test
    void parsesAPlainReadRequest() {
        Tftp.Request r = parse(message(Tftp.RRQ, "boot/pxelinux.0", "OCTET"));
        assertThat(r).isEqualTo(new Tftp.Request(Tftp.RRQ, "boot/pxelinux.0", "octet", -1, -1));
        assertThat(r.hasOptions()).isFalse();
        assertThat(parse(message(Tftp.WRQ, "f", "octet")).opcode()).isEqualTo(Tftp.WRQ);
    }

    @Test
    void parsesBlockSizeAndTransferSizeCaseInsensitively() {
        Tftp.Request r = parse(message(Tftp.RRQ, "f", "octet", "BLKSIZE", "1468", "tsize", "0", "windowsize", "4"));
        assertThat(r.blockSize()).isEqualTo(1468);
        assertThat(r.transferSize()).isZero();
        assertThat(r.hasOptions()).isTrue();
    }

    @Test
    void ignoresBlockSizesOutsideTheRfcRange() {
        assertThat(parse(message(Tftp.RRQ, "f", "octet", "blksize", "7")).blockSize()).isEqualTo(-1);
        assertThat(parse(message(Tftp.RRQ, "f", "octet", "blksize", "x12")).blockSize()).isEqualTo(-1);
        assertThat(parse(message(Tftp.RRQ, "f", "octet", "blksize", "99999999")).blockSize()).isEqualTo(Tftp.MAX_BLOCK_SIZE);
    }

    @Test
    void rejectsMalformedRequests() {
        assertThat(parse(message(Tftp.RRQ, "f"))).as("no mode").isNull();
        assertThat(parse(message(Tftp.RRQ, "", "octet"))).as("empty name").isNull();
        assertThat(parse(message(Tftp.ACK, "f", "octet"))).as("not a request").isNull();
        assertThat(parse(message(Tftp.RRQ, "f", "octet", "blksize"))).as("option without value").isNull();
        MemorySegment unterminated = message(Tftp.RRQ, "f", "octet");
        assertThat(Tftp.parseRequest(unterminated, 0, (int) unterminated.byteSize() - 1)).isNull();
        assertThat(Tftp.opcode(unterminated, 0, 1)).isEqualTo(-1);
    }

    @Test
    void writesDataErrorAndOackAsTheRfcsLayThemOut() {
        MemorySegment s = MemorySegment.ofArray(new byte[64]);
        Tftp.writeDataHeader(s, 2, 65536 + 7);
        assertThat(Segs.bytes(s, 2, 4)).containsExactly(0, 3, 0, 7);

        int n = Tftp.writeError(s, 0, Tftp.ERR_NOT_FOUND, "nope");
        assertThat(Segs.bytes(s, 0, n)).containsExactly(0, 5, 0, 1, 'n', 'o', 'p', 'e', 0);

        n = Tftp.writeOack(s, 0, 1468, 1048576);
        assertThat(new String(Segs.bytes(s, 0, n), StandardCharsets.ISO_8859_1)).isEqualTo("\0\6blksize\0" + "1468\0tsize\0" + "1048576\0");
        n = Tftp.writeOack(s, 0, -1, 42);
        assertThat(new String(Segs.bytes(s, 0, n), StandardCharsets.ISO_8859_1)).isEqualTo("\0\6tsize\0" + "42\0");
    }

    @Test
    void readsTheBlockNumberOfAnAck() {
        MemorySegment ack = MemorySegment.ofArray(new byte[] {0, 4, (byte) 0xff, (byte) 0xfe});
        assertThat(Tftp.opcode(ack, 0, 4)).isEqualTo(Tftp.ACK);
        assertThat(Tftp.block(ack, 0)).isEqualTo(0xfffe);
    }
}
