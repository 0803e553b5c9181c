package io.jslirp.warmup;

import io.jslirp.stack.NetworkConfig;
import io.jslirp.wire.Dhcp;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Udp;
import io.jslirp.wire.build.FrameBuilder;

import java.lang.foreign.MemorySegment;

/**
 * The warm-up guest's DHCP client: its messages from 0.0.0.0 to the broadcast address, as a VM's
 * client sends them before it has an address, and the lease a DHCP ACK gives it.
 */
final class GuestDhcp {
    private final NetworkConfig network;
    private final long mac;
    private final FrameBuilder frame;
    private int xid = 0x5741_0000;
    private int leased;

    GuestDhcp(NetworkConfig network, long mac) {
        this.network = network;
        this.mac = mac;
        this.frame = FrameBuilder.v4(0, 0xffff_ffff).macs(mac, Ethernet.BROADCAST).udp(Dhcp.CLIENT_PORT, Dhcp.SERVER_PORT);
    }

    /** The frame of a message of type (DISCOVER, REQUEST, RELEASE), its payload written in place at output's next frame. */
    FrameBuilder message(GuestLink output, int type) {
        MemorySegment out = output.buffer();
        long msg = output.nextFrame() + frame.payloadOffset();
        Dhcp.writeRequest(out, msg, ++xid, Dhcp.FLAG_BROADCAST, mac);
        long p = Dhcp.putOption(out, msg + Dhcp.FIXED_LENGTH, Dhcp.OPT_MESSAGE_TYPE, 1, type);
        if (type == Dhcp.REQUEST) {
            p = Dhcp.putOption(out, p, Dhcp.OPT_REQUESTED_IP, 4, network.dhcpStart());
            p = Dhcp.putOption(out, p, Dhcp.OPT_SERVER_ID, 4, network.gateway());
        }
        return frame.payloadInPlace((int) (Dhcp.putEnd(out, p) - msg));
    }

    /** A UDP datagram toward the guest (its IP header at ipOff of in): a DHCP ACK gives the guest its lease; OFFERs and the rest change nothing. */
    void received(MemorySegment in, long ipOff, int ipLength) {
        int ipHeader = Ipv4.headerLength(in, ipOff);
        long udp = ipOff + ipHeader;
        long msg = udp + Udp.HEADER_LENGTH;
        int len = ipLength - ipHeader - Udp.HEADER_LENGTH;
        if (len < Dhcp.FIXED_LENGTH || Udp.destinationPort(in, udp) != Dhcp.CLIENT_PORT) return;
        if (Dhcp.messageType(in, msg, len) == Dhcp.ACK) leased = Dhcp.yourAddress(in, msg);
    }

    /** The address of the latest lease, or 0. */
    int leased() {
        return leased;
    }
}
