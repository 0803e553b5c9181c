package io.jslirp.stack;

import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.BitSet;

/**
 * Reassembles the guest's fragmented IPv4 datagrams (RFC 791, RFC 815). Memory is bounded: at
 * most {@link #SLOTS} datagrams in progress, each in a fixed 64 KiB buffer; a datagram not
 * completed within {@link #TIMEOUT_NANOS} is dropped when its slot is wanted.
 */
final class Reassembler {
    static final int SLOTS = 16;
    static final long TIMEOUT_NANOS = 30_000_000_000L;
    private static final int MAX_DATAGRAM = 65535;

    /** Where the reassembled IP payload starts in a slot's buffer (as if in a frame). */
    static final int PAYLOAD_OFFSET = Ethernet.HEADER_LENGTH + Ipv4.MIN_HEADER_LENGTH;

    private final Slot[] slots = new Slot[SLOTS]; // created when first needed
    private final Counters counters;
    private int completed;

    Reassembler(Counters counters) {
        this.counters = counters;
    }

    private static final class Slot {
        final MemorySegment buffer = Arena.ofAuto().allocate(PAYLOAD_OFFSET + MAX_DATAGRAM + 8);
        final BitSet blocks = new BitSet(MAX_DATAGRAM / 8 + 1);
        boolean used;
        int source, destination, id, protocol;
        int totalLength = -1; // payload length, known once the last fragment arrived
        long started;
    }

    /**
     * Adds the fragment whose IPv4 header is at off (already checked). Returns the slot buffer
     * holding the whole payload at {@link #PAYLOAD_OFFSET} once complete, else null; its length
     * is then {@link #completedLength()}.
     */
    MemorySegment add(MemorySegment f, long off, long now) {
        int ihl = Ipv4.headerLength(f, off);
        int dataLen = Ipv4.totalLength(f, off) - ihl;
        int offset = Ipv4.fragmentOffset(f, off);
        boolean more = Ipv4.moreFragments(f, off);
        if (offset + dataLen > MAX_DATAGRAM - ihl || (more && dataLen % 8 != 0) || dataLen == 0) {
            counters.malformed++; // beyond 64 KiB (ping of death), or a middle piece not in 8-byte units
            return null;
        }
        Slot slot = find(Ipv4.source(f, off), Ipv4.destination(f, off), Ipv4.identification(f, off), Ipv4.protocol(f, off), now);
        MemorySegment.copy(f, off + ihl, slot.buffer, PAYLOAD_OFFSET + offset, dataLen);
        slot.blocks.set(offset / 8, (offset + dataLen + 7) / 8);
        if (!more) slot.totalLength = offset + dataLen;
        if (slot.totalLength >= 0 && slot.blocks.nextClearBit(0) >= (slot.totalLength + 7) / 8) {
            completed = slot.totalLength;
            release(slot);
            return slot.buffer;
        }
        return null;
    }

    /** Payload length of the datagram {@link #add} just completed. */
    int completedLength() {
        return completed;
    }

    private Slot find(int source, int destination, int id, int protocol, long now) {
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
                counters.reassemblyDropped++;
                release(s);
            }
            if (s.used && s.source == source && s.destination == destination && s.id == id && s.protocol == protocol) return s;
            if (!s.used && free == null) free = s;
            if (s.used && (oldest == null || s.started - oldest.started < 0)) oldest = s;
        }
        if (free == null && unbuilt >= 0) free = slots[unbuilt] = new Slot();
        if (free == null) {
            counters.reassemblyDropped++; // all slots busy: the oldest datagram gives way
            release(oldest);
            free = oldest;
        }
        free.used = true;
        free.source = source;
        free.destination = destination;
        free.id = id;
        free.protocol = protocol;
        free.totalLength = -1;
        free.started = now;
        return free;
    }

    private static void release(Slot s) {
        s.used = false;
        s.blocks.clear();
    }
}
