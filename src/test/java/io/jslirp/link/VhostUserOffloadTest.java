package io.jslirp.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.check.FrameReading;
import io.jslirp.stack.Counters;
import io.jslirp.stack.GuestOutput;
import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.stack.Stack;
import io.jslirp.stack.Transport;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Bytes;
import io.jslirp.wire.Checksum;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.IcmpEcho;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.TcpSegment;
import io.jslirp.wire.UdpDatagram;
import io.jslirp.wire.build.FrameBuilder;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The offloads over vhost-user, with the test's front-end ({@link VhostFrontend}): a stack's large
 * TCP frame reaches a guest that took GUEST_TSO behind the virtio-net header the tap would write,
 * over several mergeable buffers, its partial checksum right; a guest that did not take them gets
 * the same bytes as whole segments; a large segment the guest left unchecksummed (NEEDS_CSUM) is
 * taken by the stack. A payload from elsewhere is copied once, into the guest's buffers or the
 * backlog, and arrives byte for byte.
 */
class VhostUserOffloadTest {
    private static final ValueLayout.OfShort LE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int SEGMENT = 1448, PAYLOAD = 4000;

    @TempDir
    Path dir;

    private final MemorySegment buffer = Arena.ofAuto().allocate(VhostUserLink.MAX_FRAME);
    private final Counters counters = new Counters();
    private VhostUserLink link;
    private Stack stack;
    /** The payload length of each TCP segment the stack handed its transport. */
    private final List<Integer> tcpPayloads = new ArrayList<>();
    /** The payload of each UDP datagram the stack handed its transport. */
    private final List<byte[]> udpPayloads = new ArrayList<>();

    private VhostFrontend connect(long features) throws Exception {
        return connect(features, VhostFrontend.QUEUE);
    }

    /** A front-end that acknowledged features, with receiveBuffers buffers in its receive ring. */
    private VhostFrontend connect(long features, int receiveBuffers) throws Exception {
        link = VhostUserLink.listenUnix(dir.resolve("vu.sock").toString(), "the test's socket");
        NetworkConfig config = NetworkConfig.defaults();
        stack = new Stack(config, Ipv6Network.defaults(config), link, counters, new AddressBook());
        stack.setTransport(new Transport() {
            @Override
            public void tcp(TcpSegment segment) {
                tcpPayloads.add(segment.payloadLength());
            }

            @Override
            public void udp(UdpDatagram datagram) {
                udpPayloads.add(datagram.frame().asSlice(datagram.payloadOffset(), datagram.payloadLength()).toArray(ValueLayout.JAVA_BYTE));
            }

            @Override
            public void icmpEcho(IcmpEcho echo) {}
        });
        VhostFrontend fe = new VhostFrontend(dir.resolve("vu.sock"), dir.resolve("mem"), this::pump);
        fe.setUp(receiveBuffers, features);
        return fe;
    }

    private void pump() {
        int n;
        while ((n = link.receive(0, buffer)) > 0) stack.receive(buffer, n, link.checksumTrusted());
    }

    @AfterEach
    void close() {
        if (link != null) link.close();
    }

    private static int guest(GuestOutput out) {
        if (out.version() == 4) return out.guestAddress();
        long[] a = Ipv6.parse("fd00::5054:ff:fe12:3456");
        return out.addresses().acquire(a[0], a[1]);
    }

    /** Sends a segment from port 80 to the guest's 40000 with payload bytes (0, 1, 2, ...) from elsewhere, FIN and PSH set. */
    private static void sendTcp(GuestOutput out, int payload) {
        long off = out.tcpOffset();
        int header = Tcp.appendTimestamps(out.frame(), off, Tcp.MIN_HEADER_LENGTH, 1, 2);
        Tcp.write(out.frame(), off, out.tcpHeader().ports(80, 40000).seq(1000).ack(2000).flags(Tcp.ACK | Tcp.PSH | Tcp.FIN)
                .window(65535).length(header));
        MemorySegment data = Arena.ofAuto().allocate(payload);
        for (int i = 0; i < payload; i++) data.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        out.sendTcp(out.gateway(), guest(out), data, 0, payload, SEGMENT);
    }

    /** The TCP pseudo-header sum of frame f for a TCP message of l4Length bytes. */
    private static int pseudo(MemorySegment f, int l4Length) {
        int ip = Ethernet.HEADER_LENGTH;
        if (Ethernet.type(f, 0) == Ethernet.TYPE_IPV6) {
            return Checksum.pseudoHeader6(Ipv6.sourceHi(f, ip), Ipv6.sourceLo(f, ip), Ipv6.destinationHi(f, ip), Ipv6.destinationLo(f, ip),
                    Ipv6.PROTO_TCP, l4Length);
        }
        return Checksum.pseudoHeader4(Ipv4.source(f, ip), Ipv4.destination(f, ip), Ipv4.PROTO_TCP, l4Length);
    }

    @ParameterizedTest
    @EnumSource(IpVersion.class)
    void aLargeSegmentReachesAGuestThatTookTsoWithTheTapsHeaderOverMergedBuffers(IpVersion v) throws Exception {
        try (VhostFrontend fe = connect(VhostFrontend.FEATURES | VhostFrontend.OFFLOADS)) {
            sendTcp(v == IpVersion.V4 ? stack.ipv4() : stack.ipv6(), PAYLOAD);
            link.flush();
            byte[] got = fe.receivedMerged();
            int length = got.length - VhostFrontend.HEADER;
            assertThat(length).isEqualTo(14 + v.headerLength() + 32 + PAYLOAD);
            MemorySegment h = MemorySegment.ofArray(got);
            MemorySegment f = MemorySegment.ofArray(java.util.Arrays.copyOfRange(got, VhostFrontend.HEADER, got.length));
            int[] header = {h.get(ValueLayout.JAVA_BYTE, 0), h.get(ValueLayout.JAVA_BYTE, 1), h.get(LE16, 2), h.get(LE16, 4), h.get(LE16, 6),
                    h.get(LE16, 8)};
            assertThat(header).containsExactly(FrameReading.tcpVnetHeader(f, length, SEGMENT));
            assertThat((int) h.get(LE16, 10)).as("num_buffers").isEqualTo((got.length + VhostFrontend.BUFFER - 1) / VhostFrontend.BUFFER);
            int l4 = FrameReading.transportOffset(f);
            assertThat(Bytes.u16(f, l4 + Tcp.CHECKSUM_OFFSET)).as("the pseudo-header sum, for the guest to complete")
                    .isEqualTo(pseudo(f, length - l4));
            SoftOffload.completeChecksum(f, length, l4, Tcp.CHECKSUM_OFFSET);
            assertThat(Checksum.verify(f, l4, length - l4, pseudo(f, length - l4))).isTrue();
            assertCountingPayload(got);
        }
    }

    /** The frame's last {@link #PAYLOAD} bytes are the payload {@link #sendTcp} gave: 0, 1, 2, ... */
    private static void assertCountingPayload(byte[] frame) {
        byte[] expected = new byte[PAYLOAD];
        for (int i = 0; i < PAYLOAD; i++) expected[i] = (byte) i;
        assertThat(java.util.Arrays.copyOfRange(frame, frame.length - PAYLOAD, frame.length)).isEqualTo(expected);
    }

    /**
     * A large segment that finds the receive ring without buffers waits in the backlog, its
     * payload taken from where it waited, and reaches the guest whole once the driver adds buffers.
     */
    @Test
    void aLargeSegmentThatFindsNoBufferWaitsAndArrivesWhole() throws Exception {
        try (VhostFrontend fe = connect(VhostFrontend.FEATURES | VhostFrontend.OFFLOADS, 0)) {
            sendTcp(stack.ipv4(), PAYLOAD);
            link.flush();
            assertThat(fe.receivedMerged()).as("no buffer yet").isNull();
            boolean kicked = false;
            for (int i = 0; i < VhostFrontend.QUEUE; i++) kicked |= fe.refillReceive(i);
            assertThat(kicked).as("the link asked for a kick when buffers come").isTrue();
            pump();
            link.flush();
            byte[] got = fe.receivedMerged();
            assertThat(got).isNotNull();
            assertThat(got.length - VhostFrontend.HEADER).isEqualTo(14 + 20 + 32 + PAYLOAD);
            assertCountingPayload(got);
        }
    }

    @ParameterizedTest
    @EnumSource(IpVersion.class)
    void aGuestThatTookNoOffloadGetsWholeSegments(IpVersion v) throws Exception {
        try (VhostFrontend fe = connect(VhostFrontend.FEATURES)) {
            sendTcp(v == IpVersion.V4 ? stack.ipv4() : stack.ipv6(), PAYLOAD);
            link.flush();
            List<byte[]> segments = new ArrayList<>();
            byte[] s;
            while ((s = fe.received()) != null) segments.add(s); // (received checks a zeroed header, one buffer each)
            assertThat(segments).hasSize((PAYLOAD + SEGMENT - 1) / SEGMENT);
            ByteArrayOutputStream payload = new ByteArrayOutputStream();
            int seq = 1000, lastId = -1;
            for (int i = 0; i < segments.size(); i++) {
                MemorySegment f = MemorySegment.ofArray(segments.get(i));
                int l4 = FrameReading.transportOffset(f), length = segments.get(i).length;
                int headers = l4 + Tcp.headerLength(f, l4);
                assertThat(length - headers).isEqualTo(Math.min(SEGMENT, PAYLOAD - i * SEGMENT));
                assertThat(Checksum.verify(f, l4, length - l4, pseudo(f, length - l4))).as("TCP checksum of piece " + i).isTrue();
                if (v == IpVersion.V4) {
                    assertThat(Checksum.of(f, 14, Ipv4.headerLength(f, 14))).as("IP checksum").isZero();
                    assertThat(Ipv4.totalLength(f, 14)).isEqualTo(length - 14);
                    if (lastId >= 0) assertThat(Ipv4.identification(f, 14)).isEqualTo(lastId + 1);
                    lastId = Ipv4.identification(f, 14);
                } else {
                    assertThat(Ipv6.payloadLength(f, 14)).isEqualTo(length - 14 - 40);
                }
                assertThat(Tcp.seq(f, l4)).isEqualTo(seq);
                boolean last = i == segments.size() - 1;
                assertThat(Tcp.flags(f, l4) & (Tcp.FIN | Tcp.PSH)).isEqualTo(last ? Tcp.FIN | Tcp.PSH : 0);
                seq += length - headers;
                payload.writeBytes(java.util.Arrays.copyOfRange(segments.get(i), headers, length));
            }
            byte[] all = payload.toByteArray();
            for (int i = 0; i < PAYLOAD; i++) assertThat(all[i]).isEqualTo((byte) i);

            sendTcp(v == IpVersion.V4 ? stack.ipv4() : stack.ipv6(), 100); // one segment: not cut, its checksum completed here
            link.flush();
            byte[] one = fe.received();
            MemorySegment f = MemorySegment.ofArray(one);
            int l4 = FrameReading.transportOffset(f);
            assertThat(one.length - l4 - Tcp.headerLength(f, l4)).isEqualTo(100);
            assertThat(Checksum.verify(f, l4, one.length - l4, pseudo(f, one.length - l4))).isTrue();
        }
    }

    /** A large TCP segment from the guest to a host, its checksum field not a whole checksum, behind header. */
    private static void transmitLarge(VhostFrontend fe, byte[] header) {
        byte[] frame = FrameBuilder.v4("10.0.2.15", "203.0.113.9").tcp(40000, 80, Tcp.ACK, 1, 1).payload(30000).badChecksum().bytes();
        fe.transmit(header, frame);
    }

    @Test
    void aLargeSegmentTheGuestLeftUnchecksummedIsTakenByTheStack() throws Exception {
        try (VhostFrontend fe = connect(VhostFrontend.FEATURES | VhostFrontend.OFFLOADS)) {
            MemorySegment h = MemorySegment.ofArray(new byte[10]);
            h.set(ValueLayout.JAVA_BYTE, 0, (byte) VirtioNetHeader.NEEDS_CSUM);
            h.set(ValueLayout.JAVA_BYTE, 1, (byte) VirtioNetHeader.GSO_TCPV4);
            h.set(LE16, 2, (short) 66);
            h.set(LE16, 4, (short) SEGMENT);
            h.set(LE16, 6, (short) 34);
            h.set(LE16, 8, (short) Tcp.CHECKSUM_OFFSET);
            transmitLarge(fe, h.toArray(ValueLayout.JAVA_BYTE));
            pump();
            assertThat(counters.framesIn).isEqualTo(1);
            assertThat(counters.badChecksum).as("NEEDS_CSUM: the checksum is the device's").isZero();
            assertThat(tcpPayloads).as("one segment, whole, to the transport").containsExactly(30000);

            transmitLarge(fe, new byte[10]); // the same bytes said to be checksummed: checked, and dropped
            pump();
            assertThat(counters.framesIn).isEqualTo(2);
            assertThat(counters.badChecksum).isEqualTo(1);
            assertThat(tcpPayloads).hasSize(1);
        }
    }

    /**
     * HOST_USO: a UDP frame of 3,500 bytes the guest left to be cut into datagrams of 1,000 (gso_type
     * UDP_L4, gso_size 1000, NEEDS_CSUM with the checksum field not a whole checksum) reaches the
     * stack as four datagrams, 1000, 1000, 1000 and 500 bytes of the payload in order, each a whole
     * datagram (the stack checked its IP header); over IPv4 and IPv6. A frame whose csum_start
     * points past its end is refused whole.
     */
    @ParameterizedTest
    @EnumSource(IpVersion.class)
    void aUdpFrameTheGuestLeftToBeCutReachesTheStackAsItsDatagrams(IpVersion v) throws Exception {
        try (VhostFrontend fe = connect(VhostFrontend.FEATURES | VhostFrontend.OFFLOADS)) {
            byte[] payload = new byte[3500];
            for (int i = 0; i < payload.length; i++) payload[i] = (byte) (i * 31 + 7);
            FrameBuilder b = v == IpVersion.V4 ? FrameBuilder.v4("10.0.2.15", "203.0.113.9") : FrameBuilder.v6("fd00::100", "2001:db8::9");
            byte[] frame = b.udp(40000, 4433).payload(payload).badChecksum().bytes();
            int l4 = Ethernet.HEADER_LENGTH + (v == IpVersion.V4 ? Ipv4.MIN_HEADER_LENGTH : Ipv6.HEADER_LENGTH);
            MemorySegment h = MemorySegment.ofArray(new byte[10]);
            h.set(ValueLayout.JAVA_BYTE, 0, (byte) VirtioNetHeader.NEEDS_CSUM);
            h.set(ValueLayout.JAVA_BYTE, 1, (byte) VirtioNetHeader.GSO_UDP_L4);
            h.set(LE16, 2, (short) (l4 + 8));
            h.set(LE16, 4, (short) 1000);
            h.set(LE16, 6, (short) l4);
            h.set(LE16, 8, (short) 6);
            fe.transmit(h.toArray(ValueLayout.JAVA_BYTE), frame);
            pump();
            assertThat(counters.framesIn).as("four datagrams").isEqualTo(4);
            assertThat(counters.malformed).isZero();
            assertThat(udpPayloads).hasSize(4);
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            for (byte[] p : udpPayloads) all.write(p);
            assertThat(udpPayloads.stream().map(p -> p.length).toList()).containsExactly(1000, 1000, 1000, 500);
            assertThat(all.toByteArray()).isEqualTo(payload);

            h.set(LE16, 6, (short) (frame.length - 4)); // no room for a UDP header there
            fe.transmit(h.toArray(ValueLayout.JAVA_BYTE), frame);
            pump();
            assertThat(counters.framesIn).as("refused whole").isEqualTo(4);
            assertThat(link.badChains()).isEqualTo(1);
        }
    }
}
