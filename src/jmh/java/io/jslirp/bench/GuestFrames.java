package io.jslirp.bench;

import io.jslirp.stack.NetworkConfig;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Frames from the guest as Linux sends them at MTU 1500: Ethernet, IPv4, TCP with the timestamps option. */
final class GuestFrames {
    static final NetworkConfig NETWORK = NetworkConfig.defaults();
    static final long GUEST_MAC = 0x0200_0000_0001L;
    static final int GUEST = NETWORK.guest();
    static final int REMOTE = Ipv4.parse("192.0.2.1");
    static final int GUEST_PORT = 40000;
    static final int REMOTE_PORT = 5201;
    /** Where the TCP header starts in a frame. */
    static final long TCP_OFFSET = Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH;
    static final int TCP_HEADER_LENGTH = Tcp.MIN_HEADER_LENGTH + Tcp.TIMESTAMPS_LENGTH;
    /** Payload of a full-size segment: MSS 1460 less the timestamps option. */
    static final int FULL_PAYLOAD = NETWORK.mtu() - Ipv4.MIN_HEADER_LENGTH - TCP_HEADER_LENGTH;

    private GuestFrames() {}

    /** A guest-to-remote TCP frame with payload bytes of data, valid checksums, in native memory. */
    static MemorySegment tcp(int flags, int seq, int ack, int window, int payload) {
        int tcpLength = TCP_HEADER_LENGTH + payload;
        MemorySegment f = Arena.ofAuto().allocate(TCP_OFFSET + tcpLength, 64);
        for (int i = 0; i < payload; i++) f.set(ValueLayout.JAVA_BYTE, TCP_OFFSET + TCP_HEADER_LENGTH + i, (byte) (i * 131 + 7));
        Ethernet.write(f, 0, NETWORK.gatewayMac(), GUEST_MAC, Ethernet.TYPE_IPV4);
        Ipv4.write(f, Ethernet.HEADER_LENGTH, new IpHeader().source4(GUEST).destination4(REMOTE).protocol(Ipv4.PROTO_TCP).ttl(64).id(1)
                .payloadLength(tcpLength));
        Tcp.appendTimestamps(f, TCP_OFFSET, Tcp.MIN_HEADER_LENGTH, 1_000, 2_000);
        Tcp.write(f, TCP_OFFSET, GUEST_PORT, REMOTE_PORT, seq, ack, flags, window, TCP_HEADER_LENGTH);
        Tcp.fillChecksum(f, TCP_OFFSET, tcpLength, Checksum.pseudoHeader4(GUEST, REMOTE, Ipv4.PROTO_TCP, tcpLength));
        return f;
    }

    /** The TCP segment's length in a frame made by {@link #tcp}. */
    static int tcpLength(MemorySegment frame) {
        return (int) (frame.byteSize() - TCP_OFFSET);
    }
}
