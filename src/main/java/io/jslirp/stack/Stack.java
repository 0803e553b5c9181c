package io.jslirp.stack;

import io.jslirp.util.AddressBook;
import io.jslirp.wire.Drop;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv4;

import java.lang.foreign.MemorySegment;
import java.util.function.LongSupplier;

/**
 * The virtual network below the transport, for both IP versions: takes the guest's frames
 * (Ethernet, then the {@link Neighbours} or the one {@link IpInput}), answers what the router
 * answers itself (ARP and Neighbor Solicitations, echo to its addresses), hands DHCP and Router
 * Solicitations to the {@link Services} and TCP, UDP and other echo to the {@link Transport}, and
 * sends through one {@link Output}, of which {@link #ipv4()} and {@link #ipv6()} are each
 * version's view. IPv6 is there only when given its network ({@code --enable-ipv6}); without it
 * IPv6 frames are counted as unsupported.
 */
public final class Stack {
    private final NetworkConfig config;
    private final Ipv6Network network6;
    private final Counters counters;
    private final LinkCapabilities capabilities;
    private final AddressBook addresses;
    private final Neighbours neighbours;
    private final IpInput input;
    private final IpOutput ipv4, ipv6;

    /** An IPv4-only stack with an address book of its own. */
    public Stack(NetworkConfig config, FrameSink sink, Counters counters) {
        this(config, null, sink, counters, new AddressBook());
    }

    /**
     * @param network6  the IPv6 network, or null for none
     * @param addresses the engine's address handles, which the transport and the output use, for both versions
     */
    public Stack(NetworkConfig config, Ipv6Network network6, FrameSink sink, Counters counters, AddressBook addresses) {
        this.config = config;
        this.network6 = network6;
        this.counters = counters;
        this.addresses = addresses;
        // what the link can do, asked once: the one way out for TCP and UDP runs is picked from it here
        this.capabilities = sink.capabilities();
        Output output = new Output(sink, capabilities, counters, config.gatewayMac(), config.mtu());
        Transmit transmit = Transmit.of(capabilities, output);
        this.neighbours = new Neighbours(config, network6, output, addresses, counters);
        this.ipv4 = new IpOutput(IpVersion.V4, transmit, neighbours, addresses,
                new long[] {0, Ipv4.mapped(config.gateway()), 0, Ipv4.mapped(config.dns())}, 0);
        this.ipv6 = network6 == null ? null : new IpOutput(IpVersion.V6, transmit, neighbours, addresses,
                new long[] {network6.gatewayHi(), network6.gatewayLo(), network6.dnsHi(), network6.dnsLo(),
                        Ipv6Network.LINK_LOCAL_HI, Ipv6Network.ROUTER_LINK_LOCAL_LO},
                network6.prefixHi());
        neighbours.setOutputs(ipv4, ipv6);
        this.input = new IpInput(counters, addresses, neighbours);
    }

    public void setTransport(Transport transport) {
        input.setTransport(transport);
    }

    /** The gateway's DHCP and Router Advertisement services; without, their messages are dropped. */
    public void setServices(Services services) {
        input.setServices(services);
        neighbours.setServices(services);
    }

    /** The clock of fragment reassembly and of the services' DHCP leases (System.nanoTime; tests move it on by hand). */
    public void setClock(LongSupplier clock) {
        input.setClock(clock);
    }

    public NetworkConfig config() {
        return config;
    }

    /** The IPv6 network, or null without IPv6. */
    public Ipv6Network network6() {
        return network6;
    }

    public Counters counters() {
        return counters;
    }

    /** What the link said it can do, when the stack was built. */
    public LinkCapabilities capabilities() {
        return capabilities;
    }

    /** The frames sent and not yet written out by the link ({@link TxBatch}): flushed at the end of each loop iteration. */
    public TxBatch transmitBatch() {
        return ipv4.transmitBatch();
    }

    /** The handles the transport's and the outputs' addresses are. */
    public AddressBook addresses() {
        return addresses;
    }

    /** What the layers above send to the guest over IPv4. */
    public IpOutput ipv4() {
        return ipv4;
    }

    /** What the layers above send to the guest over IPv6, or null without IPv6. */
    public IpOutput ipv6() {
        return ipv6;
    }

    /** Takes one frame of length bytes from the guest, checking every checksum. */
    public void receive(MemorySegment f, int length) {
        receive(f, length, false);
    }

    /**
     * Takes one frame of length bytes from the guest; its TCP or UDP checksum is checked unless
     * checksumTrusted ({@link io.jslirp.link.Link#checksumTrusted}); ICMP's always is. Never
     * throws for bad input: counts and drops it.
     */
    public void receive(MemorySegment f, int length, boolean checksumTrusted) {
        counters.framesIn++;
        Drop error = Ethernet.check(f, 0, length);
        if (error != null) {
            counters.dropped(error);
            return;
        }
        long source = Ethernet.source(f, 0);
        int payload = length - Ethernet.HEADER_LENGTH;
        switch (Ethernet.type(f, 0)) {
            case Ethernet.TYPE_ARP -> neighbours.arp(f, Ethernet.HEADER_LENGTH, payload, source);
            case Ethernet.TYPE_IPV4 -> input.receive(ipv4, f, Ethernet.HEADER_LENGTH, payload, source, checksumTrusted);
            case Ethernet.TYPE_IPV6 -> {
                if (ipv6 != null) input.receive(ipv6, f, Ethernet.HEADER_LENGTH, payload, source, checksumTrusted);
                else counters.dropped(Drop.UNSUPPORTED);
            }
            default -> counters.dropped(Drop.UNSUPPORTED);
        }
    }
}
