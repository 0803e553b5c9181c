package io.jslirp.stack;

import io.jslirp.wire.Checksum;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Tcp;
import io.jslirp.wire.Udp;

import java.lang.foreign.MemorySegment;

/**
 * How TCP segments, and runs of UDP datagrams, go out to the link: picked once, when the stack
 * is built, from what the link can do ({@link LinkCapabilities}), with the same entry points
 * whichever it is, so the output asks nothing of the link per segment. A link that cuts UDP frames
 * (USO) takes runs of datagrams whichever way its TCP goes. {@link Copy} puts a payload
 * into the frame and fills the checksum; {@link Gather} fills the checksum and leaves the payload
 * where it waits, for the link to write from there at its flush; {@link Offload} leaves the
 * checksum and the cutting into segments (TSO, USO) to the link, as the frame's {@link TxFrame} says.
 */
abstract sealed class Transmit permits Transmit.Copy, Transmit.Gather, Transmit.Offload {
    final Output output;
    /** Cleared when the link refused a UDP frame to be cut (a kernel without USO): datagrams then go one by one. */
    private boolean udp;

    private Transmit(Output output, boolean udp) {
        this.output = output;
        this.udp = udp;
    }

    /** The one way out for a link that can do what c says, through output. */
    static Transmit of(LinkCapabilities c, Output output) {
        if (c.offloadsTcp()) return new Offload(output, c.offloadsUdp());
        if (c.gathersPayloads()) return new Gather(output, c.offloadsUdp());
        return new Copy(output, c.offloadsUdp());
    }

    /** Whether a TCP segment may carry more than one segment's payload, for the link to cut (TSO). */
    boolean largeSegments() {
        return false;
    }

    /** Whether {@link #sendUdpSegments} may be tried now: the link cuts UDP frames (USO) and has not refused one. */
    final boolean udpSegments() {
        return udp;
    }

    /** Sends the TCP segment s describes, its checksum filled or left to the link. */
    abstract void sendTcp(OutgoingSegment s);

    /**
     * Sends the UDP frame of datagrams of segmentSize bytes at the version's offset in tx (h
     * describes its IP header; its UDP header holds the pseudo-header sum), for the link to cut:
     * false when it was not sent.
     */
    final boolean sendUdpSegments(IpVersion v, MemorySegment tx, IpHeader h, long mac, int segmentSize) {
        int l4 = Output.payloadOffset(v);
        TxFrame f = output.describe(v, tx, h, mac).partialChecksum(l4, Udp.CHECKSUM_OFFSET)
                .cut(TxFrame.Segmentation.UDP, l4 + Udp.HEADER_LENGTH, segmentSize);
        boolean sent = output.sendIfTaken(f);
        if (!sent && f.refused()) udp = false;
        return sent;
    }

    /** The segment all in the frame, its checksum filled: whole, or in fragments beyond the MTU. */
    final void sendFilled(OutgoingSegment s) {
        s.copyPayloadIntoFrame();
        Tcp.fillChecksum(s.frame, s.l4, s.tcpLength(), s.pseudoHeader());
        output.send(s.version, s.frame, s.ip, s.mac);
    }

    /** A link of whole frames: a payload from elsewhere is copied into the frame. */
    static final class Copy extends Transmit {
        private Copy(Output output, boolean udp) {
            super(output, udp);
        }

        @Override
        void sendTcp(OutgoingSegment s) {
            sendFilled(s);
        }
    }

    /**
     * A link that gathers: the checksum summed where the payload waits, and the payload written
     * from there by the link (one copy into the link's buffer at most, not one into the frame and
     * one more from there). A segment larger than the MTU (never at the MSS) is put together here
     * and sent in fragments.
     */
    static final class Gather extends Transmit {
        private Gather(Output output, boolean udp) {
            super(output, udp);
        }

        @Override
        void sendTcp(OutgoingSegment s) {
            if (s.payload == null || s.version.headerLength() + s.tcpLength() > output.mtu()) {
                sendFilled(s);
                return;
            }
            int headerSum = Tcp.headerSum(s.frame, s.l4, s.headerLength, s.pseudoHeader());
            Tcp.setChecksum(s.frame, s.l4, Checksum.sum(s.payload, s.payloadOffset, s.payloadLength, headerSum));
            output.send(output.describe(s.version, s.frame, s.ip, s.mac).payloadFrom(s.payload, s.payloadOffset, s.payloadLength));
        }
    }

    /**
     * A link (a tap with vnet headers) that completes checksums and cuts large frames: the guest's
     * kernel takes a TCP frame of many segments as it takes one its own NIC coalesced, and a run
     * of UDP datagrams as the datagrams. The payload is handed over from where it waits.
     */
    static final class Offload extends Transmit {
        private Offload(Output output, boolean udp) {
            super(output, udp);
        }

        @Override
        boolean largeSegments() {
            return true;
        }

        @Override
        void sendTcp(OutgoingSegment s) {
            Tcp.setPartialChecksum(s.frame, s.l4, s.pseudoHeader());
            TxFrame f = output.describe(s.version, s.frame, s.ip, s.mac).partialChecksum(s.l4, Tcp.CHECKSUM_OFFSET);
            int headerLength;
            if (s.payload != null) {
                f.payloadFrom(s.payload, s.payloadOffset, s.payloadLength);
                headerLength = s.headerLength;
            } else {
                // all in the frame: the header's length (its options) matters only to a segment long enough to be cut
                headerLength = s.tcpLength() - Tcp.MIN_HEADER_LENGTH > s.segmentSize ? Tcp.headerLength(s.frame, s.l4) : Tcp.MIN_HEADER_LENGTH;
            }
            if (s.tcpLength() - headerLength > s.segmentSize) {
                f.cut(s.version == IpVersion.V4 ? TxFrame.Segmentation.TCP4 : TxFrame.Segmentation.TCP6, s.l4 + headerLength,
                        s.segmentSize);
            }
            output.send(f);
        }
    }
}
