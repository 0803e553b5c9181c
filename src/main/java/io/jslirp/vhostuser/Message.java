package io.jslirp.vhostuser;

import io.jslirp.virtio.Le;
import java.lang.foreign.MemorySegment;

/**
 * A vhost-user message as it arrives: a 12-byte header (request u32, flags u32, payload size
 * u32, all little-endian) and the payload. {@link #decode} checks everything the wire format
 * says (version, sizes for each request, region count) so that the backend reads fields only of
 * well-formed payloads. A flyweight over the caller's buffer: one per connection, refilled by
 * each decode. File descriptors travel beside the bytes (SCM_RIGHTS) and are the caller's to pass on.
 */
public final class Message {
    public static final int HEADER = 12;
    /** The largest payload taken: beyond any message the backend serves (a full memory table is 264 bytes). */
    public static final int MAX_PAYLOAD = 4096;
    public static final int VERSION = 1, VERSION_MASK = 3, FLAG_REPLY = 1 << 2, FLAG_NEED_REPLY = 1 << 3;
    /** The most regions a SET_MEM_TABLE carries. */
    public static final int MAX_REGIONS = 8;
    public static final int REGION_SIZE = 32, CONFIG_HEADER = 12, MAX_CONFIG = 256;
    /** In a kick, call or err message's u64: the ring index, and the bit saying no descriptor comes with it. */
    public static final long RING_INDEX_MASK = 0xff, NO_FD = 1L << 8;

    private MemorySegment buffer;
    private Request request;
    private int flags;
    private int size;

    /**
     * The payload size a header announces, after checking the header alone (so that the caller
     * knows how many bytes to read next): a version other than 1, a reply where a request is due,
     * or a size beyond {@link #MAX_PAYLOAD} is refused.
     */
    public static int payloadSize(MemorySegment header) throws ProtocolException {
        int flags = Le.u32(header, 4);
        long size = Le.u32(header, 8) & 0xffffffffL;
        if ((flags & VERSION_MASK) != VERSION) throw new ProtocolException("message of version " + (flags & VERSION_MASK) + ", not 1");
        if ((flags & FLAG_REPLY) != 0) throw new ProtocolException("a reply (flags 0x" + Integer.toHexString(flags) + ") from the front-end");
        if (size > MAX_PAYLOAD) throw new ProtocolException("payload of " + size + " bytes, more than " + MAX_PAYLOAD);
        return (int) size;
    }

    /** Decodes buffer[0, length): a header and exactly the payload it announces. */
    public Message decode(MemorySegment buffer, long length) throws ProtocolException {
        if (length < HEADER) throw new ProtocolException("message of " + length + " bytes, shorter than its header");
        int size = payloadSize(buffer);
        if (length != HEADER + size) throw new ProtocolException("message of " + length + " bytes, its header says " + (HEADER + size));
        int code = Le.u32(buffer, 0);
        Request r = Request.of(code);
        if (r == null) throw new ProtocolException("unknown request " + Integer.toUnsignedString(code));
        this.buffer = buffer;
        this.request = r;
        this.flags = Le.u32(buffer, 4);
        this.size = size;
        String wrong = checkSize(r, size);
        if (wrong != null) throw new ProtocolException(r + " with a payload of " + size + " bytes: " + wrong);
        return this;
    }

    /** Why size is not a valid payload size of r, or null. */
    private String checkSize(Request r, int size) {
        return switch (r.payload()) {
            case NONE -> size == 0 ? null : "expected none";
            case U64, STATE -> size == 8 ? null : "expected 8";
            case ADDR -> size == 40 ? null : "expected 40";
            case LOG -> size == 16 ? null : "expected 16";
            case REGION -> size == 8 + REGION_SIZE ? null : "expected " + (8 + REGION_SIZE);
            case MEMORY -> {
                if (size < 8) yield "shorter than the region count";
                long n = regions();
                if (n < 1 || n > MAX_REGIONS) yield n + " regions, expected 1 to " + MAX_REGIONS;
                yield size == 8 + REGION_SIZE * n ? null : "expected " + (8 + REGION_SIZE * n) + " for " + n + " regions";
            }
            case CONFIG -> {
                if (size < CONFIG_HEADER) yield "shorter than the config header";
                long n = configSize();
                yield n <= MAX_CONFIG && size == CONFIG_HEADER + n ? null : "config of " + n + " bytes";
            }
            case UNCHECKED -> null;
        };
    }

    public Request request() {
        return request;
    }

    public int flags() {
        return flags;
    }

    public int size() {
        return size;
    }

    public boolean needsReply() {
        return (flags & FLAG_NEED_REPLY) != 0;
    }

    private long payloadU64(long off) {
        return Le.u64(buffer, HEADER + off);
    }

    private long payloadU32(long off) {
        return Le.u32(buffer, HEADER + off) & 0xffffffffL;
    }

    /** A U64 payload (features, a kick/call/err ring and flag, an MTU). */
    public long u64() {
        return payloadU64(0);
    }

    /** A vring state's index (a STATE payload) or a vring address's index (an ADDR payload). */
    public long ringIndex() {
        return payloadU32(0);
    }

    /** A vring state's number: a size, a base, an enable flag. */
    public long ringNum() {
        return payloadU32(4);
    }

    public long addrFlags() {
        return payloadU32(4);
    }

    /** The front-end's user addresses of the descriptor table, used ring and available ring, and the log's guest address. */
    public long descAddress() {
        return payloadU64(8);
    }

    public long usedAddress() {
        return payloadU64(16);
    }

    public long availAddress() {
        return payloadU64(24);
    }

    public long logAddress() {
        return payloadU64(32);
    }

    /** A memory table's region count. */
    public long regions() {
        return payloadU32(0);
    }

    public long regionGuestAddress(int i) {
        return payloadU64(8 + (long) REGION_SIZE * i);
    }

    public long regionSize(int i) {
        return payloadU64(8 + (long) REGION_SIZE * i + 8);
    }

    public long regionUserAddress(int i) {
        return payloadU64(8 + (long) REGION_SIZE * i + 16);
    }

    public long regionMmapOffset(int i) {
        return payloadU64(8 + (long) REGION_SIZE * i + 24);
    }

    /** A log payload: the size of the log to map and its offset in the descriptor. */
    public long logSize() {
        return payloadU64(0);
    }

    public long logOffset() {
        return payloadU64(8);
    }

    /** A config payload: where in the device's config space, how many bytes, its flags. */
    public long configOffset() {
        return payloadU32(0);
    }

    public long configSize() {
        return payloadU32(4);
    }

    public long configFlags() {
        return payloadU32(8);
    }
}
