package io.jslirp.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.wire.Segs.Kind;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Arbitrary bytes of arbitrary length: every check/parse method returns a reason, false or -1 and
 * never throws. Segments are cut to exactly off + len bytes, so reading past len would throw.
 */
class MalformedInputTest {

    static void neverThrows(MemorySegment s, long off, int len, int code) {
        Ipv4.check(s, off, len);
        Udp.check(s, off, len);
        Tcp.check(s, off, len);
        Arp.check(s, off, len);
        Ipv6.check(s, off, len);
        Ipv6.read(s, off, len, new IpHeader());
        Ipv4.read(s, off, len, new IpHeader());
        Ndp.check(s, off, len, Ndp.NEIGHBOR_LENGTH);
        Dhcpv6.check(s, off, len);
        Icmp.check(s, off, len, IpVersion.V6, new IpHeader());
        Tcp.check(s, off, len, IpVersion.V4, new IpHeader(), new TcpOptions());
        Udp.check(s, off, len, IpVersion.V6, new IpHeader(), false);
        Dhcp.checkRequest(s, off, len);
        Dhcp.findOption(s, off, len, code);
        Dhcp.messageType(s, off, len);
        Dhcp.requestedAddress(s, off, len);
        Dhcp.serverId(s, off, len);
        TcpOptions opts = new TcpOptions();
        Tcp.parseOptions(s, off, opts);
    }

    @Property(tries = 500)
    void randomBytes(@ForAll Kind kind, @ForAll @Size(max = 300) byte[] data, @ForAll @IntRange(max = 300) int offSeed,
                     @ForAll @IntRange(max = 300) int lenSeed, @ForAll @IntRange(max = 255) int code) {
        int off = offSeed % (data.length + 1);
        int len = lenSeed % (data.length - off + 1);
        try (Arena arena = Arena.ofConfined()) {
            neverThrows(Segs.of(kind, arena, data).asSlice(0, off + len), off, len, code);
        }
    }

    /** Random bytes shaped to get past the first checks: IPv4 version, DHCP header and cookie, TCP offset. */
    @Property(tries = 500)
    void randomBytesThatLookAlmostValid(@ForAll Kind kind, @ForAll @Size(min = 20, max = 400) byte[] data,
                                        @ForAll @IntRange(max = 400) int lenSeed,
                                        @ForAll @IntRange(max = 255) int code) {
        data[0] = (byte) (0x40 | (data[0] & 0x0f)); // version 4 (and, for DHCP, op 0x4x: not a request)
        int len = lenSeed % (data.length + 1);
        if (data.length > 12 && (data[3] & 1) == 0) data[12] = (byte) (data[12] & 0x7f); // TCP offset <= 7 words
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.of(kind, arena, data).asSlice(0, len);
            neverThrows(s, 0, len, code);
            if (len >= 240) {
                Bytes.u8(s, 0, 1);
                Bytes.u8(s, 1, 1);
                Bytes.u8(s, 2, 6);
                Bytes.u32(s, 236, Dhcp.MAGIC_COOKIE);
                assertThat(Dhcp.checkRequest(s, 0, len)).isNull();
                neverThrows(s, 0, len, code);
            }
        }
    }

    /** Whatever check accepts is consistent with what the accessors report and the reference checksum. */
    @Property(tries = 500)
    void acceptedInputIsConsistent(@ForAll Kind kind, @ForAll @Size(min = 0, max = 100) byte[] data,
                                   @ForAll @IntRange(min = 0, max = 3) int fixChecksum) {
        checkConsistent(kind, data, fixChecksum);
    }

    /** Checks data (made an IPv4 header, its checksum right if fixChecksum > 0) against the reference classification. */
    static void checkConsistent(Kind kind, byte[] data, int fixChecksum) {
        if (data.length >= 20) {
            data[0] = (byte) (0x40 | (data[0] & 0x0f));
            int ihl = (data[0] & 0x0f) * 4;
            if (fixChecksum > 0 && ihl >= 20 && ihl <= data.length) {
                data[10] = 0;
                data[11] = 0;
                Ref.put16(data, 10, Ref.checksum(data, 0, ihl));
            }
        }
        int len = data.length;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment s = Segs.of(kind, arena, data);

            // Reference classification, from the bytes alone.
            Drop ip;
            if (len < 20) ip = Drop.TRUNCATED;
            else if ((data[0] & 0xff) >> 4 != 4) ip = Drop.BAD_VERSION;
            else if ((data[0] & 0x0f) * 4 < 20 || (data[0] & 0x0f) * 4 > len) ip = Drop.BAD_HEADER_LENGTH;
            else if (Ref.u16(data, 2) < (data[0] & 0x0f) * 4 || Ref.u16(data, 2) > len) ip = Drop.BAD_LENGTH;
            else if (Ref.checksum(data, 0, (data[0] & 0x0f) * 4) != 0) ip = Drop.BAD_CHECKSUM;
            else ip = null;
            assertThat(Ipv4.check(s, 0, len)).isEqualTo(ip);

            Drop udp = len < 8 ? Drop.TRUNCATED
                    : Ref.u16(data, 4) < 8 || Ref.u16(data, 4) > len ? Drop.BAD_LENGTH : null;
            assertThat(Udp.check(s, 0, len)).isEqualTo(udp);

            Drop tcp = len < 20 ? Drop.TRUNCATED
                    : (data[12] & 0xf0) >> 2 < 20 || (data[12] & 0xf0) >> 2 > len ? Drop.BAD_HEADER_LENGTH
                    : optionsWellFormed(data, (data[12] & 0xf0) >> 2) ? null : Drop.BAD_OPTION;
            assertThat(Tcp.check(s, 0, len)).isEqualTo(tcp);

            boolean arp = len >= 28 && Ref.u16(data, 0) == 1 && Ref.u16(data, 2) == 0x0800 && data[4] == 6 && data[5] == 4;
            assertThat(Arp.check(s, 0, len) == null).isEqualTo(arp);
        }
    }

    /** The reference TCP option walk (RFC 9293 section 3.2): end of list, no-op, or kind, length >= 2, inside the header. */
    private static boolean optionsWellFormed(byte[] b, int headerLength) {
        for (int i = 20; i < headerLength; ) {
            int kind = b[i] & 0xff;
            if (kind == 0) return true;
            if (kind == 1) {
                i++;
                continue;
            }
            if (i + 1 >= headerLength) return false;
            int len = b[i + 1] & 0xff;
            if (len < 2 || i + len > headerLength) return false;
            i += len;
        }
        return true;
    }
}
