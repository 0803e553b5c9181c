package io.jslirp.link;

import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Tap;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.Udp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.LongSupplier;

/**
 * A tap device (IFF_TAP | IFF_NO_PI), opened with one descriptor per queue: one read or write is
 * one Ethernet frame. Frames toward the guest go out on their flow's queue ({@link FlowLanes}).
 *
 * <p>Opened with a vnet header ({@link Tap#openQueues}), each frame travels behind a struct
 * virtio_net_hdr: the guest's TCP segments of up to 64 KiB arrive whole (the header says how the
 * guest would have cut them, which does not matter here), and TCP frames toward the guest go with
 * a partial checksum and as much payload as fits, for the guest's kernel to take as segments.
 */
public final class TapLink implements Link {
    private static final ValueLayout.OfShort LE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int NEEDS_CSUM = 1, DATA_VALID = 2, GSO_NONE = 0, GSO_TCPV4 = 1, GSO_TCPV6 = 4, GSO_UDP_L4 = 5;

    private final int[] fds;
    private final FlowLanes lanes;
    private final boolean vnetHeader;
    /** The virtio_net_hdr read before each received frame (only its checksum flags matter) and written before each sent one. */
    private final MemorySegment rxHeader, txHeader;
    /** The iovec array of a frame written in pieces: vnet header, frame headers, payload in up to two spans. */
    private final MemorySegment txVector;
    /** Cleared when the kernel refused a UDP frame to be cut (USO: Linux 6.2 and later take them): datagrams then go one by one. */
    private boolean udpSegments = true;
    /** The time a flow's queue was last used by, for {@link FlowLanes} (System.nanoTime unless given). */
    private final LongSupplier clock;

    /** Takes ownership of the open, non-blocking descriptors of one tap device without vnet headers, one per queue. */
    public TapLink(int... fds) {
        this(false, fds);
    }

    /** Takes ownership of the descriptors of one tap device, one per queue, opened with or without vnet headers. */
    public TapLink(boolean vnetHeader, int... fds) {
        this(System::nanoTime, vnetHeader, fds);
    }

    /** As {@link #TapLink(boolean, int...)}, with the clock that times the queues' flows. */
    public TapLink(LongSupplier clock, boolean vnetHeader, int... fds) {
        if (fds.length == 0) throw new IllegalArgumentException("a tap needs at least one descriptor");
        this.fds = fds.clone();
        this.lanes = new FlowLanes(fds.length);
        this.vnetHeader = vnetHeader;
        this.clock = clock;
        Arena arena = Arena.ofAuto();
        this.rxHeader = arena.allocate(Tap.VNET_HEADER_LENGTH, 8);
        this.txHeader = arena.allocate(Tap.VNET_HEADER_LENGTH, 8);
        this.txVector = arena.allocate(4 * 16, 8);
    }

    @Override
    public int queues() {
        return fds.length;
    }

    @Override
    public int fd(int queue) {
        return fds[queue];
    }

    @Override
    public int receive(int queue, MemorySegment buffer) {
        int fd = fds[queue];
        long n = vnetHeader
                ? Libc.readv2(fd, rxHeader, 0, Tap.VNET_HEADER_LENGTH, buffer, 0, (int) buffer.byteSize())
                : Libc.read(fd, buffer, 0, (int) buffer.byteSize());
        if (n >= 0) return vnetHeader ? (int) Math.max(n - Tap.VNET_HEADER_LENGTH, 0) : (int) n;
        return n == -Errno.EAGAIN || n == -Errno.EINTR ? 0 : -1;
    }

    @Override
    public boolean pollSeesEveryFrame() {
        return true;
    }

    @Override
    public boolean checksumTrusted() {
        return vnetHeader && (rxHeader.get(ValueLayout.JAVA_BYTE, 0) & (NEEDS_CSUM | DATA_VALID)) != 0;
    }

    @Override
    public boolean send(MemorySegment frame, int length) {
        if (vnetHeader) txHeader.fill((byte) 0);
        return write(frame, length);
    }

    @Override
    public boolean offloadsTcp() {
        return vnetHeader;
    }

    @Override
    public boolean sendTcp(MemorySegment frame, int length, int segmentSize) {
        tcpVnetHeader(frame, length, segmentSize);
        return write(frame, length);
    }

    @Override
    public boolean offloadsUdp() {
        return vnetHeader && udpSegments;
    }

    /** One frame of datagrams of segmentSize bytes, for the guest's kernel to cut (VIRTIO_NET_HDR_GSO_UDP_L4). */
    @Override
    public boolean sendUdpSegments(MemorySegment frame, int length, int segmentSize) {
        if (!offloadsUdp()) return false;
        int l4 = transportOffset(frame);
        txHeader.set(ValueLayout.JAVA_BYTE, 0, (byte) NEEDS_CSUM);
        txHeader.set(ValueLayout.JAVA_BYTE, 1, (byte) GSO_UDP_L4);
        txHeader.set(LE16, 2, (short) (l4 + Udp.HEADER_LENGTH));           // hdr_len
        txHeader.set(LE16, 4, (short) segmentSize);                         // gso_size
        txHeader.set(LE16, 6, (short) l4);                                  // csum_start
        txHeader.set(LE16, 8, (short) Udp.CHECKSUM_OFFSET);                 // csum_offset
        int fd = queueFd(frame, length);
        long n = Libc.writev2(fd, txHeader, 0, Tap.VNET_HEADER_LENGTH, frame, 0, length);
        if (n == -Errno.EINVAL) udpSegments = false; // a kernel without USO: never again
        return n == Tap.VNET_HEADER_LENGTH + length;
    }

    /** The frame's headers, then the payload from where it is: one writev, no copy. */
    @Override
    public boolean sendTcp(MemorySegment frame, int headersLength, MemorySegment payload, long payloadOffset,
                           int payloadLength, int segmentSize) {
        tcpVnetHeader(frame, headersLength + payloadLength, segmentSize);
        int fd = queueFd(frame, headersLength);
        Libc.iovec(txVector, 0, txHeader, 0, Tap.VNET_HEADER_LENGTH);
        Libc.iovec(txVector, 1, frame, 0, headersLength);
        Libc.iovec(txVector, 2, payload, payloadOffset, payloadLength);
        return Libc.writev(fd, txVector, 3) == Tap.VNET_HEADER_LENGTH + headersLength + payloadLength;
    }

    /** Fills the vnet header for a TCP frame of length bytes: partial checksum, and TSO when the payload exceeds segmentSize. */
    private void tcpVnetHeader(MemorySegment frame, int length, int segmentSize) {
        if (!vnetHeader) throw new UnsupportedOperationException("tap opened without vnet headers");
        boolean v6 = Ethernet.type(frame, 0) == Ethernet.TYPE_IPV6;
        int l4 = transportOffset(frame);
        int headers = l4 + Tcp.headerLength(frame, l4);
        boolean segmented = length - headers > segmentSize;
        txHeader.set(ValueLayout.JAVA_BYTE, 0, (byte) NEEDS_CSUM);
        txHeader.set(ValueLayout.JAVA_BYTE, 1, (byte) (segmented ? (v6 ? GSO_TCPV6 : GSO_TCPV4) : GSO_NONE));
        txHeader.set(LE16, 2, (short) (segmented ? headers : 0));          // hdr_len
        txHeader.set(LE16, 4, (short) (segmented ? segmentSize : 0));      // gso_size
        txHeader.set(LE16, 6, (short) l4);                                  // csum_start
        txHeader.set(LE16, 8, (short) Tcp.CHECKSUM_OFFSET);                  // csum_offset
    }

    /** Where the TCP or UDP header of an IPv4 or IPv6 frame starts. */
    private static int transportOffset(MemorySegment frame) {
        boolean v6 = Ethernet.type(frame, 0) == Ethernet.TYPE_IPV6;
        return Ethernet.HEADER_LENGTH + (v6 ? Ipv6.HEADER_LENGTH : Ipv4.headerLength(frame, Ethernet.HEADER_LENGTH));
    }

    /** The descriptor of the queue the frame's flow goes out on (headersLength of its bytes in frame). */
    private int queueFd(MemorySegment frame, int headersLength) {
        return fds.length == 1 ? fds[0] : fds[lanes.laneOf(frame, headersLength, clock.getAsLong())];
    }

    private boolean write(MemorySegment frame, int length) {
        int fd = queueFd(frame, length);
        if (!vnetHeader) return Libc.write(fd, frame, 0, length) == length;
        return Libc.writev2(fd, txHeader, 0, Tap.VNET_HEADER_LENGTH, frame, 0, length) == Tap.VNET_HEADER_LENGTH + length;
    }

    @Override
    public void close() {
        for (int fd : fds) Libc.close(fd);
    }
}
