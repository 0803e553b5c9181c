package io.jslirp.wire;

import java.lang.foreign.MemorySegment;

/**
 * One ICMP (ICMPv6) echo request from the guest, read once: its IP version and addresses (as the
 * handles the stack holds for the call), its code, identifier and sequence, and where the message
 * (header and data) lies. Filled by {@link Icmp#readEcho} (and the addresses by the IP input)
 * after the message was checked. Reused for every request: valid for the call it is handed to only.
 */
public final class IcmpEcho extends Inbound {
    private int code, identifier, sequence;

    /** Fills the fields from the checked message of len bytes at off of s. */
    void fill(MemorySegment s, long off, int len) {
        place(s, off, len);
        code = Icmp.code(s, off);
        int rest = Icmp.rest(s, off);
        identifier = rest >>> 16;
        sequence = rest & 0xffff;
    }

    public int code() {
        return code;
    }

    public int identifier() {
        return identifier;
    }

    public int sequence() {
        return sequence;
    }
}
