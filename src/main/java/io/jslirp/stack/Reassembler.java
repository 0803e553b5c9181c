package io.jslirp.stack;

import io.jslirp.wire.Drop;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.IpHeader;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv6;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;

/**
 * Reassembles the guest's fragmented datagrams of both versions (RFC 791, RFC 815, RFC 8200
 * section 4.5). Memory is bounded: at most {@link #SLOTS} datagrams in progress, each in a fixed
 * 64 KiB buffer; a datagram not completed within {@link #TIMEOUT_NANOS} is dropped when its slot
 * is wanted. IPv4's pieces may overlap (the later bytes win); IPv6's may not (RFC 5722): a piece
 * overlapping another abandons its datagram, though a piece wholly covered (a duplicate the link
 * made) is ignored.
 */
final class Reassembler {
    static final int SLOTS = 16;
    static final long TIMEOUT_NANOS = 30_000_000_000L;
    private static final int MAX_DATAGRAM = 65535;

    /** Where the reassembled IP payload starts in a slot's buffer (as if in a frame). */
    static final int PAYLOAD_OFFSET = Ethernet.HEADER_LENGTH + Ipv6.HEADER_LENGTH;

    private final Slot[] slots = new Slot[SLOTS]; // created when first needed
    private final Counters counters;
    private int completed, completedProtocol;

    Reassembler(Counters counters) {
        this.counters = counters;
    }

    private static final class Slot {
        final MemorySegment buffer = Arena.ofAuto().allocate(PAYLOAD_OFFSET + MAX_DATAGRAM + 8);
        final BitSet blocks = new BitSet(MAX_DATAGRAM / 8 + 1);
        boolean used;
        IpVersion version;
        long sourceHi, sourceLo, destinationHi, destinationLo;
        int id, protocol;
        /** What the datagram's payload starts with, known from its first piece (IPv6's Fragment header names it there). */
        int first;
        int totalLength = -1; // payload length, known once the last fragment arrived
        long started;
    }

    /**
     * Adds the fragment h describes (read by its version's codec), whose data is at data in f.
     * Returns the slot buffer holding the whole payload at {@link #PAYLOAD_OFFSET} once complete,
     * else null; its length is then {@link #completedLength()}, what it starts with {@link #completedProtocol()}.
     */
    MemorySegment add(IpVersion v, MemorySegment f, long data, IpHeader h, long now) {
        int dataLen = h.payloadLength();
        int offset = h.fragmentOffset();
        boolean more = h.moreFragments();
        // IPv4's total length counts its header: the payload may reach 65535 less the header (ping of death past it)
        int limit = v == IpVersion.V4 ? MAX_DATAGRAM - h.headerLength() : MAX_DATAGRAM;
        if (offset + dataLen > limit || (more && dataLen % 8 != 0) || dataLen == 0) {
            counters.dropped(Drop.BAD_FRAGMENT); // beyond 64 KiB, or a middle piece not in 8-byte units
            return null;
        }
        // IPv4's key has the protocol (RFC 791); IPv6's names it in the first piece only
        int protocol = v == IpVersion.V4 ? h.protocol() : -1;
        Slot slot = find(v, h, protocol, now);
        int fromBlock = offset / 8, toBlock = (offset + dataLen + 7) / 8;
        if (v == IpVersion.V6) {
            int set = slot.blocks.nextSetBit(fromBlock);
            if (set >= 0 && set < toBlock) {
                int clear = slot.blocks.nextClearBit(fromBlock);
                if (clear >= toBlock) return null; // all of it is here already: a duplicate
                counters.dropped(Drop.REASSEMBLY_ABANDONED); // overlapping pieces (RFC 5722)
                release(slot);
                return null;
            }
        }
        MemorySegment.copy(f, data, slot.buffer, PAYLOAD_OFFSET + offset, dataLen);
        slot.blocks.set(fromBlock, toBlock);
        if (offset == 0) slot.first = h.protocol();
        if (!more) slot.totalLength = offset + dataLen;
        if (slot.totalLength >= 0 && slot.blocks.nextClearBit(0) >= (slot.totalLength + 7) / 8) {
            completed = slot.totalLength;
            completedProtocol = slot.first;
            release(slot);
            return slot.buffer;
        }
        return null;
    }

    /** Payload length of the datagram {@link #add} just completed. */
    int completedLength() {
        return completed;
    }

    /** What the payload {@link #add} just completed starts with: IPv4's protocol, or IPv6's first header after the Fragment header. */
    int completedProtocol() {
        return completedProtocol;
    }

    private Slot find(IpVersion v, IpHeader h, int protocol, long now) {
        Slot free = null;
        Slot oldest = null;
        int unbuilt = -1;
        for (int i = 0; i < SLOTS; i++) {
            Slot s = slots[i];
            if (s == null) {
                if (unbuilt < 0) unbuilt = i;
                continue;
            }
            if (s.used && now - s.started > TIMEOUT_NANOS) {
                counters.dropped(Drop.REASSEMBLY_ABANDONED);
                release(s);
            }
            if (s.used && s.version == v && s.id == h.id() && s.protocol == protocol && s.sourceLo == h.sourceLo()
                    && s.sourceHi == h.sourceHi() && s.destinationLo == h.destinationLo() && s.destinationHi == h.destinationHi()) {
                return s;
            }
            if (!s.used && free == null) free = s;
            if (s.used && (oldest == null || s.started - oldest.started < 0)) oldest = s;
        }
        if (free == null && unbuilt >= 0) free = slots[unbuilt] = new Slot();
        if (free == null) {
            counters.dropped(Drop.REASSEMBLY_ABANDONED); // all slots busy: the oldest datagram gives way
            release(oldest);
            free = oldest;
        }
        free.used = true;
        free.version = v;
        free.sourceHi = h.sourceHi();
        free.sourceLo = h.sourceLo();
        free.destinationHi = h.destinationHi();
        free.destinationLo = h.destinationLo();
        free.id = h.id();
        free.protocol = protocol;
        free.first = -1;
        free.totalLength = -1;
        free.started = now;
        return free;
    }

    private static void release(Slot s) {
        s.used = false;
        s.blocks.clear();
    }
}
