package io.jslirp.stack;

import io.jslirp.wire.Bytes;
import io.jslirp.wire.Dhcp;
import io.jslirp.wire.Ipv4;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * DHCPv4 server of the gateway (RFC 2131): leases from {@link NetworkConfig#dhcpStart()} on, one
 * per client MAC, as libslirp does (16 addresses). Offers carry the netmask, router, DNS server,
 * MTU and lease time, and, when a boot file is set, what a network boot needs as QEMU gives it: the
 * file name (in the 'file' field and option 67) and the gateway as TFTP server (siaddr, option 66).
 */
final class DhcpServer {
    static final int POOL_SIZE = 16;
    static final int LEASE_SECONDS = 86400;

    private final NetworkConfig config;
    /** The boot file name in ASCII, or null; and the gateway's address as text, for option 66. */
    private final byte[] bootFile, tftpServer;
    private final Map<Long, Integer> leases = new HashMap<>();
    /** The address of the latest DHCPACK, 0 before one. */
    private int lastAcked;
    private int replyLength;
    private int replyDestination;
    private long replyMac;
    private String lastError;

    DhcpServer(NetworkConfig config, String bootFile) {
        this.config = config;
        this.bootFile = bootFile == null ? null : bootFile.getBytes(StandardCharsets.US_ASCII);
        if (this.bootFile != null && this.bootFile.length >= Dhcp.FILE_LENGTH) {
            throw new IllegalArgumentException("boot file name longer than " + (Dhcp.FILE_LENGTH - 1) + " bytes: " + bootFile);
        }
        this.tftpServer = Ipv4.format(config.gateway()).getBytes(StandardCharsets.US_ASCII);
    }

    int replyLength() {
        return replyLength;
    }

    int replyDestination() {
        return replyDestination;
    }

    long replyMac() {
        return replyMac;
    }

    /** Why the last message got no reply because it was malformed, or null. */
    String lastError() {
        return lastError;
    }

    /**
     * Handles one client message of len bytes at off; when it calls for a reply, writes it at
     * txOff in tx and returns true.
     */
    boolean handle(MemorySegment rx, long off, int len, MemorySegment tx, long txOff) {
        lastError = Dhcp.checkRequest(rx, off, len);
        if (lastError != null) return false;
        int type = Dhcp.messageType(rx, off, len);
        long mac = Dhcp.clientMac(rx, off);
        int reply;
        int address;
        switch (type) {
            case Dhcp.DISCOVER -> {
                address = leaseFor(mac, Dhcp.requestedAddress(rx, off, len));
                if (address == 0) return false; // pool exhausted: stay silent, as a full server does
                reply = Dhcp.OFFER;
            }
            case Dhcp.REQUEST -> {
                int serverId = Dhcp.serverId(rx, off, len);
                if (serverId != 0 && serverId != config.gateway()) return false; // the client chose another server
                int wanted = Dhcp.requestedAddress(rx, off, len);
                if (wanted == 0) wanted = Dhcp.clientAddress(rx, off);
                address = leaseFor(mac, wanted);
                reply = address != 0 && address == wanted ? Dhcp.ACK : Dhcp.NAK;
                if (reply == Dhcp.ACK) lastAcked = address;
            }
            case Dhcp.RELEASE -> {
                leases.remove(mac);
                return false;
            }
            case -1 -> {
                lastError = "dhcp without message type";
                return false;
            }
            default -> {
                return false; // DECLINE, INFORM: nothing to answer here
            }
        }
        Dhcp.writeReply(tx, txOff, Dhcp.xid(rx, off), Dhcp.flags(rx, off), reply == Dhcp.ACK || reply == Dhcp.OFFER ? address : 0,
                config.gateway(), mac);
        long p = txOff + Dhcp.FIXED_LENGTH;
        p = option(tx, p, Dhcp.OPT_MESSAGE_TYPE, 1, reply);
        p = option(tx, p, Dhcp.OPT_SERVER_ID, 4, config.gateway());
        if (reply != Dhcp.NAK) {
            p = option(tx, p, Dhcp.OPT_LEASE_TIME, 4, LEASE_SECONDS);
            p = option(tx, p, Dhcp.OPT_SUBNET_MASK, 4, config.netmask());
            p = option(tx, p, Dhcp.OPT_ROUTER, 4, config.gateway());
            p = option(tx, p, Dhcp.OPT_DNS, 4, config.dns());
            p = option(tx, p, Dhcp.OPT_MTU, 2, config.mtu());
            if (bootFile != null) {
                Dhcp.writeBootFile(tx, txOff, bootFile);
                p = option(tx, p, Dhcp.OPT_TFTP_SERVER, tftpServer);
                p = option(tx, p, Dhcp.OPT_BOOTFILE, bootFile);
            }
        }
        Bytes.u8(tx, p++, Dhcp.OPT_END);
        // Pad to the 300-byte BOOTP minimum some clients expect.
        int length = (int) (p - txOff);
        if (length < 300) {
            tx.asSlice(p, 300 - length).fill((byte) 0);
            length = 300;
        }
        replyLength = length;
        replyDestination = 0xffffffff;
        replyMac = mac;
        return true;
    }

    private static long option(MemorySegment s, long p, int code, int size, int value) {
        Bytes.u8(s, p, code);
        Bytes.u8(s, p + 1, size);
        switch (size) {
            case 1 -> Bytes.u8(s, p + 2, value);
            case 2 -> Bytes.u16(s, p + 2, value);
            default -> Bytes.u32(s, p + 2, value);
        }
        return p + 2 + size;
    }

    private static long option(MemorySegment s, long p, int code, byte[] value) {
        Bytes.u8(s, p, code);
        Bytes.u8(s, p + 1, value.length);
        MemorySegment.copy(MemorySegment.ofArray(value), 0, s, p + 2, value.length);
        return p + 2 + value.length;
    }

    /** The address the latest DHCPACK gave a client, 0 before one. */
    int lastAcked() {
        return lastAcked;
    }

    /** The client's lease: its existing one, else the requested address if free in the pool, else the first free one; 0 if none. */
    private int leaseFor(long mac, int requested) {
        Integer existing = leases.get(mac);
        if (existing != null) return existing;
        int chosen = 0;
        if (inPool(requested) && !leases.containsValue(requested)) {
            chosen = requested;
        } else {
            for (int i = 0; i < POOL_SIZE && chosen == 0; i++) {
                int candidate = config.dhcpStart() + i;
                if (!leases.containsValue(candidate)) chosen = candidate;
            }
        }
        if (chosen != 0) leases.put(mac, chosen);
        return chosen;
    }

    private boolean inPool(int address) {
        return address - config.dhcpStart() >= 0 && address - config.dhcpStart() < POOL_SIZE;
    }
}
