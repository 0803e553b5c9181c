package io.jslirp.link;

import io.jslirp.stack.LinkCapabilities;
import io.jslirp.stack.TxFrame;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Tap;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.LongSupplier;

/**
 * A tap device (IFF_TAP | IFF_NO_PI), opened with one descriptor per queue: one read or write is
 * one Ethernet frame. Frames toward the guest go out on their flow's queue ({@link FlowLanes}).
 *
 * <p>Opened with a vnet header ({@link Tap#openQueues}), each frame travels behind a struct
 * virtio_net_hdr: the guest's TCP segments of up to 64 KiB arrive whole (the header says how the
 * guest would have cut them, which does not matter here), and TCP frames toward the guest go with
 * a partial checksum and as much payload as fits, for the guest's kernel to take as segments, as
 * the stack's description of each frame ({@link TxFrame}) says: the tap reads none of it back.
 */
public final class TapLink implements Link {
    private final int[] fds;
    private final FlowLanes lanes;
    private final boolean vnetHeader;
    /** The virtio_net_hdr read before each received frame (only its checksum flags matter) and written before each sent one. */
    private final MemorySegment rxHeader, txHeader;
    /** The iovec array of a frame written in pieces: vnet header, frame headers, payload in up to two spans. */
    private final MemorySegment txVector;
    /** A tap with vnet headers offloads TCP and UDP (USO: Linux 6.2 and later take it; the stack stops when refused). */
    private final LinkCapabilities capabilities;
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
        this.capabilities = new LinkCapabilities(false, vnetHeader, vnetHeader, fds.length > 1);
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
        return vnetHeader && VirtioNetHeader.checksumTrusted(rxHeader);
    }

    @Override
    public LinkCapabilities capabilities() {
        return capabilities;
    }

    /** A frame nothing is said of (not the stack's IP frames, which come described): the first queue, nothing offloaded. */
    @Override
    public boolean send(MemorySegment frame, int length) {
        if (vnetHeader) VirtioNetHeader.clear(txHeader);
        return write(fds[0], frame, length) == prefix() + length;
    }

    /**
     * The frame on its flow's queue, behind a vnet header saying what the stack left to the guest's
     * kernel (the checksum, the cutting), and a payload from where it is: one writev, no copy.
     */
    @Override
    public boolean send(TxFrame f) {
        if (vnetHeader) VirtioNetHeader.fill(txHeader, f);
        int fd = fds.length == 1 ? fds[0] : fds[lanes.laneOf(f.flowKey(), clock.getAsLong())];
        long n;
        if (f.payloadLength() == 0) {
            n = write(fd, f.frame(), f.frameLength());
        } else {
            Libc.iovec(txVector, 0, txHeader, 0, prefix());
            Libc.iovec(txVector, 1, f.frame(), 0, f.frameLength());
            Libc.iovec(txVector, 2, f.payload(), f.payloadOffset(), f.payloadLength());
            n = Libc.writev(fd, txVector, 3);
        }
        if (n == -Errno.EINVAL && f.segmentation() == TxFrame.Segmentation.UDP) f.refuse(); // a kernel without USO (before Linux 6.2)
        return n == prefix() + f.length();
    }

    /** The bytes written before each frame: the vnet header, or none. */
    private int prefix() {
        return vnetHeader ? Tap.VNET_HEADER_LENGTH : 0;
    }

    /** Writes length bytes at the start of frame to fd, after {@link #txHeader} with vnet headers: the bytes written, or -errno. */
    private long write(int fd, MemorySegment frame, int length) {
        return vnetHeader ? Libc.writev2(fd, txHeader, 0, Tap.VNET_HEADER_LENGTH, frame, 0, length) : Libc.write(fd, frame, 0, length);
    }

    @Override
    public void close() {
        for (int fd : fds) Libc.close(fd);
    }
}
