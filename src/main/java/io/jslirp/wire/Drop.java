package io.jslirp.wire;

/**
 * Why a frame, or a part of one, is not taken: the one answer of every codec's {@code check}
 * (null when the bytes are fine) and of the layers above when they drop. Each reason belongs to
 * exactly one {@link Counter}, so a drop is counted by its reason alone
 * ({@code io.jslirp.stack.Counters#dropped}), never by comparing messages.
 */
public enum Drop {
    /** Shorter than its header, or than a length field says. */
    TRUNCATED(Counter.MALFORMED),
    /** An IP version field that is not the version of the frame's type. */
    BAD_VERSION(Counter.MALFORMED),
    /** A header length field shorter than the fixed header or longer than the bytes. */
    BAD_HEADER_LENGTH(Counter.MALFORMED),
    /** A length field inconsistent with the header it belongs to. */
    BAD_LENGTH(Counter.MALFORMED),
    /** An option list that runs past its end, or an option of length zero. */
    BAD_OPTION(Counter.MALFORMED),
    /** A field holding a value the protocol does not allow there (an address, a hop limit, a code). */
    BAD_FIELD(Counter.MALFORMED),
    /** A fragment beyond 64 KiB, or a middle piece not in 8-byte units. */
    BAD_FRAGMENT(Counter.MALFORMED),
    /** A header or transport checksum that does not sum to zero. */
    BAD_CHECKSUM(Counter.BAD_CHECKSUM),
    /** Well formed, of a kind the stack does not handle. */
    UNSUPPORTED(Counter.UNSUPPORTED),
    /** A claim by the guest of an address of the gateway's (ARP, Neighbor Advertisement): ignored. */
    ADDRESS_CLAIM(Counter.ADDRESS_CLAIM),
    /** A datagram in reassembly given up: timed out, its slot wanted, or its fragments overlapping (IPv6). */
    REASSEMBLY_ABANDONED(Counter.REASSEMBLY),
    /** A frame toward the guest that the link did not take, or that cannot be built. */
    NOT_SENT(Counter.SEND);

    /** The counter a reason is counted under. */
    public enum Counter {
        MALFORMED, BAD_CHECKSUM, UNSUPPORTED, ADDRESS_CLAIM, REASSEMBLY, SEND
    }

    private final Counter counter;

    Drop(Counter counter) {
        this.counter = counter;
    }

    public Counter counter() {
        return counter;
    }
}
