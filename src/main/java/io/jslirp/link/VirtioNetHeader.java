package io.jslirp.link;

import io.jslirp.stack.TxFrame;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The struct virtio_net_hdr before each frame, for the tap with vnet headers and for vhost-user's
 * rings alike: one place that says, from the stack's description of a frame ({@link TxFrame}),
 * what is left to the guest's kernel (the checksum, the cutting), and one that reads what the
 * guest's kernel left to us. Its first ten bytes; virtio 1.x's num_buffers after them is the
 * receive ring's to fill.
 */
final class VirtioNetHeader {
    /** The fields up to gso's and the checksum's: the tap's header. */
    static final int LENGTH = 10;
    static final int NEEDS_CSUM = 1, DATA_VALID = 2;
    static final int GSO_NONE = 0, GSO_TCPV4 = 1, GSO_TCPV6 = 4, GSO_UDP_L4 = 5;
    private static final ValueLayout.OfShort LE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private VirtioNetHeader() {}

    /** Fills the header at h for the frame f describes: all zero for one whose checksums are filled and that is not cut. */
    static void fill(MemorySegment h, TxFrame f) {
        h.set(ValueLayout.JAVA_BYTE, 0, (byte) (f.partialChecksum() ? NEEDS_CSUM : 0));
        h.set(ValueLayout.JAVA_BYTE, 1, (byte) gsoType(f.segmentation()));
        h.set(LE16, 2, (short) f.headersLength());                  // hdr_len
        h.set(LE16, 4, (short) f.segmentSize());                    // gso_size
        h.set(LE16, 6, (short) f.checksumStart());                  // csum_start
        h.set(LE16, 8, (short) f.checksumOffset());                 // csum_offset
    }

    /** Zeroes the header at h: a whole frame, its checksums filled. */
    static void clear(MemorySegment h) {
        h.asSlice(0, LENGTH).fill((byte) 0);
    }

    /**
     * Whether the frame behind the header at h needs no TCP/UDP checksum check: its sender left the
     * checksum to the device (the field holds the pseudo-header sum only) or vouched for it.
     */
    static boolean checksumTrusted(MemorySegment h) {
        return (h.get(ValueLayout.JAVA_BYTE, 0) & (NEEDS_CSUM | DATA_VALID)) != 0;
    }

    /** The gso_type of the header at h (GSO_NONE, GSO_TCPV4, ...; the ECN bit cleared). */
    static int gsoType(MemorySegment h) {
        return h.get(ValueLayout.JAVA_BYTE, 1) & 0x7f;
    }

    /** The gso_size of the header at h: the payload of each segment the frame is to be cut into. */
    static int gsoSize(MemorySegment h) {
        return h.get(LE16, 4) & 0xffff;
    }

    /** The csum_start of the header at h: where the checksummed part (the L4 header) begins. */
    static int checksumStart(MemorySegment h) {
        return h.get(LE16, 6) & 0xffff;
    }

    static int gsoType(TxFrame.Segmentation s) {
        return switch (s) {
            case NONE -> GSO_NONE;
            case TCP4 -> GSO_TCPV4;
            case TCP6 -> GSO_TCPV6;
            case UDP -> GSO_UDP_L4;
        };
    }
}
