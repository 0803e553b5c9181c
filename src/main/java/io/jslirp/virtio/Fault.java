package io.jslirp.virtio;

/**
 * Why the device refuses what the driver put in guest memory. The driver is untrusted input like a
 * guest's frames: each reason is a refusal the caller counts, never a crash. A fatal fault leaves
 * the queue unusable until it is set up again (its rings cannot be trusted); any other costs one
 * chain, which the queue has already returned to the driver as used with length 0.
 */
public enum Fault {
    /** A queue size that is zero, not a power of two, or over {@link Virtqueue#MAX_SIZE}. */
    BAD_QUEUE_SIZE(true),
    /** A descriptor table, available ring or used ring not wholly inside one region of guest memory, or misaligned. */
    RING_OUTSIDE_MEMORY(true),
    /** An available index that moved by more than the queue size since the device last looked. */
    AVAIL_INDEX_JUMP(true),
    /** A head in the available ring, or a descriptor's next, that is not an index of the table. */
    BAD_DESCRIPTOR_INDEX(false),
    /** A buffer whose guest addresses are not all inside guest memory. */
    DESCRIPTOR_OUTSIDE_MEMORY(false),
    /** A chain of more descriptors than the queue size (or than its indirect table holds): a loop. */
    DESCRIPTOR_LOOP(false),
    /** An indirect descriptor not negotiated, of a length that is not a whole number of descriptors, or with NEXT set. */
    BAD_INDIRECT(false),
    /** An indirect table whose descriptors refer to another indirect table. */
    NESTED_INDIRECT(false),
    /** An indirect table not contiguous inside one region of guest memory. */
    INDIRECT_OUTSIDE_MEMORY(false),
    /** A device-readable buffer after a device-writable one in the same chain. */
    READABLE_AFTER_WRITABLE(false),
    /** A chain split into more pieces than the device keeps for one chain. */
    CHAIN_TOO_LONG(false),
    /** A receive chain with less writable room than the virtio-net header. */
    RECEIVE_CHAIN_TOO_SMALL(false);

    private final boolean fatal;

    Fault(boolean fatal) {
        this.fatal = fatal;
    }

    /** True when the queue is unusable until it is set up again. */
    public boolean fatal() {
        return fatal;
    }
}
