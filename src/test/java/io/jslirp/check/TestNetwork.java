package io.jslirp.check;

import io.jslirp.service.DhcpServer;
import io.jslirp.service.Dhcpv6Server;
import io.jslirp.service.LinkServices;
import io.jslirp.service.RouterAdvertisements;
import io.jslirp.stack.Counters;
import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.stack.Stack;
import io.jslirp.stack.Transport;
import io.jslirp.util.AddressBook;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The stack as the engine wires it (the gateway's services on it), over a {@link Recorder} link,
 * with a virtual clock and a transport that writes down what reaches it:
 * "tcp SRC -> DST LENGTH", "udp SRC:PORT -> DST:PORT LENGTH", "echo SRC -> DST LENGTH".
 */
public final class TestNetwork {
    public final Recorder link = new Recorder();
    public final Counters counters = new Counters();
    public final AddressBook addresses = new AddressBook();
    public final Stack stack;
    public final List<String> transport = new ArrayList<>();
    /** Null without IPv6. */
    public final RouterAdvertisements advertisements;
    /** The stack's clock (nanoseconds), moved by hand. */
    public long now;

    public TestNetwork(boolean ipv6) {
        this(ipv6, null);
    }

    public TestNetwork(boolean ipv6, String bootFile) {
        NetworkConfig config = NetworkConfig.defaults();
        Ipv6Network network6 = ipv6 ? Ipv6Network.defaults(config) : null;
        stack = new Stack(config, network6, link, counters, addresses);
        advertisements = ipv6 ? new RouterAdvertisements(stack.ipv6(), network6) : null;
        stack.setServices(new LinkServices(new DhcpServer(config, bootFile, stack.ipv4()),
                ipv6 ? new Dhcpv6Server(stack.ipv6(), network6) : null, advertisements));
        stack.setClock(() -> now);
        stack.setTransport(new Transport() {
            @Override
            public void tcp(io.jslirp.wire.TcpSegment segment) {
                transport.add("tcp " + name(segment.source()) + " -> " + name(segment.destination()) + " " + segment.length());
            }

            @Override
            public void udp(io.jslirp.wire.UdpDatagram d) {
                transport.add("udp " + name(d.source()) + ":" + d.sourcePort() + " -> " + name(d.destination()) + ":" + d.destinationPort()
                        + " " + d.payloadLength());
            }

            @Override
            public void icmpEcho(io.jslirp.wire.IcmpEcho e) {
                transport.add("echo " + name(e.source()) + " -> " + name(e.destination()) + " " + e.length());
            }
        });
    }

    /** An address as text, without brackets. */
    public String name(int handle) {
        String s = addresses.format(handle);
        return s.startsWith("[") ? s.substring(1, s.length() - 1) : s;
    }

    public void receive(MemorySegment frame) {
        stack.receive(frame, (int) frame.byteSize());
    }

    public void receive(MemorySegment frame, boolean checksumTrusted) {
        stack.receive(frame, (int) frame.byteSize(), checksumTrusted);
    }
}
