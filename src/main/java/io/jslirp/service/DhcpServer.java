package io.jslirp.service;

import io.jslirp.stack.NetworkConfig;
import io.jslirp.stack.ServiceOutput;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.Dhcp;
import io.jslirp.wire.Drop;
import io.jslirp.wire.Ipv4;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * DHCPv4 server of the gateway (RFC 2131): leases from {@link NetworkConfig#dhcpStart()} on, one
 * per client MAC, as libslirp does (16 addresses). Offers carry the netmask, router, DNS server,
 * MTU and lease time, and, when a boot file is set, what a network boot needs as QEMU gives it: the
 * file name (in the 'file' field and option 67) and the gateway as TFTP server (siaddr, option 66).
 * Replies go to the client's MAC and the broadcast address through the stack's IPv4
 * {@link ServiceOutput}; an acknowledged address becomes the guest's.
 *
 * <p>A client flooding the server with made-up MACs (DHCP starvation) must not lock out the next
 * real one: when the pool is full, a new client gets the oldest lease that has been unused for
 * {@link #RECLAIM_AFTER_SECONDS} — offered and not requested, or bound with no frame ever seen from
 * its address (the stack reports every source address through {@link #seen}). A lease whose address
 * is in use is never taken back. A client whose lease was given away gets a NAK when it requests it,
 * and starts over.
 */
public final class DhcpServer {
    static final int POOL_SIZE = 16;
    static final int LEASE_SECONDS = 86400;
    static final int RECLAIM_AFTER_SECONDS = 10;
    private static final byte FREE = 0, OFFERED = 1, BOUND = 2, IN_USE = 3;

    private final NetworkConfig config;
    private final ServiceOutput out;
    /** The boot file name in ASCII, or null; and the gateway's address as text, for option 66. */
    private final byte[] bootFile, tftpServer;
    /** Lease i is for address dhcpStart + i: its client's MAC, state and when it was offered or bound (System.nanoTime). */
    private final long[] leaseMac = new long[POOL_SIZE];
    private final byte[] leaseState = new byte[POOL_SIZE];
    private final long[] leaseSince = new long[POOL_SIZE];
    /** The broadcast address's handle, held for the life of the server. */
    private final int broadcast;

    /** out: the stack's IPv4 output; bootFile: the file DHCP names (with the gateway as its TFTP server), or null. */
    public DhcpServer(NetworkConfig config, String bootFile, ServiceOutput out) {
        this.config = config;
        this.out = out;
        this.bootFile = bootFile == null ? null : bootFile.getBytes(StandardCharsets.US_ASCII);
        if (this.bootFile != null && this.bootFile.length >= Dhcp.FILE_LENGTH) {
            throw new IllegalArgumentException("boot file name longer than " + (Dhcp.FILE_LENGTH - 1) + " bytes: " + bootFile);
        }
        this.tftpServer = Ipv4.format(config.gateway()).getBytes(StandardCharsets.US_ASCII);
        this.broadcast = out.addresses().acquire4(0xffffffff);
    }

    /**
     * Handles one client message of len bytes at off, at time now; when it calls for a reply,
     * sends it. A malformed message is counted and dropped.
     */
    public void handle(MemorySegment rx, long off, int len, long now) {
        Drop error = Dhcp.checkRequest(rx, off, len);
        if (error != null) {
            out.counters().dropped(error);
            return;
        }
        long mac = Dhcp.clientMac(rx, off);
        int reply;
        int address;
        switch (Dhcp.messageType(rx, off, len)) {
            case Dhcp.DISCOVER -> {
                address = offer(mac, Dhcp.requestedAddress(rx, off, len), now);
                if (address == 0) return; // every lease in use: stay silent, as a full server does
                reply = Dhcp.OFFER;
            }
            case Dhcp.REQUEST -> {
                int serverId = Dhcp.serverId(rx, off, len);
                if (serverId != 0 && serverId != config.gateway()) return; // the client chose another server
                int wanted = Dhcp.requestedAddress(rx, off, len);
                if (wanted == 0) wanted = Dhcp.clientAddress(rx, off);
                address = bind(mac, wanted, now);
                reply = address != 0 ? Dhcp.ACK : Dhcp.NAK;
            }
            case Dhcp.RELEASE -> {
                int i = leaseOf(mac);
                if (i >= 0) leaseState[i] = FREE;
                return;
            }
            case -1 -> {
                out.counters().dropped(Drop.BAD_OPTION); // no message type
                return;
            }
            default -> {
                return; // DECLINE, INFORM: nothing to answer here
            }
        }
        MemorySegment tx = out.frame();
        long txOff = out.udpPayloadOffset();
        Dhcp.writeReply(tx, txOff, Dhcp.xid(rx, off), Dhcp.flags(rx, off), mac);
        Dhcp.writeAddresses(tx, txOff, reply == Dhcp.ACK || reply == Dhcp.OFFER ? address : 0, config.gateway());
        long p = txOff + Dhcp.FIXED_LENGTH;
        p = Dhcp.putOption(tx, p, Dhcp.OPT_MESSAGE_TYPE, 1, reply);
        p = Dhcp.putOption(tx, p, Dhcp.OPT_SERVER_ID, 4, config.gateway());
        if (reply != Dhcp.NAK) {
            p = Dhcp.putOption(tx, p, Dhcp.OPT_LEASE_TIME, 4, LEASE_SECONDS);
            p = Dhcp.putOption(tx, p, Dhcp.OPT_SUBNET_MASK, 4, config.netmask());
            p = Dhcp.putOption(tx, p, Dhcp.OPT_ROUTER, 4, config.gateway());
            p = Dhcp.putOption(tx, p, Dhcp.OPT_DNS, 4, config.dns());
            p = Dhcp.putOption(tx, p, Dhcp.OPT_MTU, 2, config.mtu());
            if (bootFile != null) {
                Dhcp.writeBootFile(tx, txOff, bootFile);
                p = Dhcp.putOption(tx, p, Dhcp.OPT_TFTP_SERVER, tftpServer);
                p = Dhcp.putOption(tx, p, Dhcp.OPT_BOOTFILE, bootFile);
            }
        }
        p = Dhcp.putEnd(tx, p);
        // Pad to the 300-byte BOOTP minimum some clients expect.
        int length = (int) (p - txOff);
        if (length < 300) {
            tx.asSlice(p, 300 - length).fill((byte) 0);
            length = 300;
        }
        if (reply == Dhcp.ACK) { // a (re)booted guest's new address
            AddressBook book = out.addresses();
            int acked = book.acquire4(address);
            out.assignGuestAddress(acked);
            book.release(acked);
        }
        out.sendUdp(out.gateway(), Dhcp.SERVER_PORT, broadcast, Dhcp.CLIENT_PORT, length, mac);
    }


    /** Notes that address is the source of a frame: a lease for it is really used and is not taken back. */
    public void seen(int address) {
        int i = address - config.dhcpStart();
        if (i >= 0 && i < POOL_SIZE && leaseState[i] == BOUND) leaseState[i] = IN_USE;
    }

    /**
     * The address to offer: the client's lease, else the requested address if free, else the
     * first free one, else one taken back ({@link #reclaimable}); 0 if none.
     */
    private int offer(long mac, int requested, long now) {
        int i = leaseOf(mac);
        if (i < 0 && inPool(requested) && leaseState[requested - config.dhcpStart()] == FREE) i = requested - config.dhcpStart();
        for (int k = 0; i < 0 && k < POOL_SIZE; k++) {
            if (leaseState[k] == FREE) i = k;
        }
        if (i < 0) i = reclaimable(now);
        if (i < 0) return 0;
        if (leaseMac[i] != mac || leaseState[i] == FREE) take(i, mac, OFFERED, now);
        return config.dhcpStart() + i;
    }

    /** Binds wanted to the client if it holds that lease or the address is free; 0 (a NAK) otherwise. */
    private int bind(long mac, int wanted, long now) {
        if (!inPool(wanted)) return 0;
        int i = wanted - config.dhcpStart();
        if (leaseState[i] != FREE && leaseMac[i] != mac) return 0; // given to another client meanwhile
        int held = leaseOf(mac);
        if (held >= 0 && held != i) leaseState[held] = FREE; // a client has one address
        if (leaseState[i] == FREE || leaseState[i] == OFFERED) take(i, mac, BOUND, now);
        return wanted;
    }

    private void take(int i, long mac, byte state, long now) {
        leaseMac[i] = mac;
        leaseState[i] = state;
        leaseSince[i] = now;
    }

    /** The lease of mac (any state but free), or -1. */
    private int leaseOf(long mac) {
        for (int i = 0; i < POOL_SIZE; i++) {
            if (leaseState[i] != FREE && leaseMac[i] == mac) return i;
        }
        return -1;
    }

    /** In a full pool: the oldest lease offered or bound at least RECLAIM_AFTER_SECONDS ago and not in use; -1 if none. */
    private int reclaimable(long now) {
        int best = -1;
        for (int i = 0; i < POOL_SIZE; i++) {
            boolean unused = leaseState[i] == OFFERED || leaseState[i] == BOUND;
            if (unused && now - leaseSince[i] >= RECLAIM_AFTER_SECONDS * 1_000_000_000L
                    && (best < 0 || leaseSince[i] - leaseSince[best] < 0)) {
                best = i;
            }
        }
        return best;
    }

    private boolean inPool(int address) {
        return address - config.dhcpStart() >= 0 && address - config.dhcpStart() < POOL_SIZE;
    }
}
