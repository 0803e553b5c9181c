package io.jslirp.vhostuser;

import io.jslirp.virtio.Le;
import java.lang.foreign.MemorySegment;

/**
 * Writes vhost-user messages: the backend's replies, and (for a front-end, the tests' among them)
 * requests. Each method writes header and payload at the start of out and returns the length;
 * the version is added to the flags given.
 */
public final class Encoder {
    private Encoder() {}

    private static int header(MemorySegment out, int code, int flags, int size) {
        Le.u32(out, 0, code);
        Le.u32(out, 4, flags | Message.VERSION);
        Le.u32(out, 8, size);
        return Message.HEADER + size;
    }

    /** A message with no payload. */
    public static int empty(MemorySegment out, Request r, int flags) {
        return header(out, r.code(), flags, 0);
    }

    public static int u64(MemorySegment out, Request r, int flags, long value) {
        Le.u64(out, Message.HEADER, value);
        return header(out, r.code(), flags, 8);
    }

    public static int state(MemorySegment out, Request r, int flags, int index, int num) {
        Le.u32(out, Message.HEADER, index);
        Le.u32(out, Message.HEADER + 4, num);
        return header(out, r.code(), flags, 8);
    }

    /** A SET_VRING_ADDR: the ring's index and its three parts' user addresses. */
    public static int addr(MemorySegment out, int flags, int index, long desc, long used, long avail) {
        Le.u32(out, Message.HEADER, index);
        Le.u32(out, Message.HEADER + 4, 0);
        Le.u64(out, Message.HEADER + 8, desc);
        Le.u64(out, Message.HEADER + 16, used);
        Le.u64(out, Message.HEADER + 24, avail);
        Le.u64(out, Message.HEADER + 32, 0);
        return header(out, Request.SET_VRING_ADDR.code(), flags, 40);
    }

    /** A SET_MEM_TABLE of these regions (guest address, size, user address, mmap offset each); the descriptors go beside. */
    public static int memoryTable(MemorySegment out, int flags, long[]... regions) {
        Le.u32(out, Message.HEADER, regions.length);
        Le.u32(out, Message.HEADER + 4, 0);
        for (int i = 0; i < regions.length; i++) {
            for (int f = 0; f < 4; f++) Le.u64(out, Message.HEADER + 8 + (long) Message.REGION_SIZE * i + 8L * f, regions[i][f]);
        }
        return header(out, Request.SET_MEM_TABLE.code(), flags, 8 + Message.REGION_SIZE * regions.length);
    }

    /** A message of any code and payload bytes, for what the other methods cannot say (malformed ones among them). */
    public static int raw(MemorySegment out, int code, int flags, byte[] payload) {
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, out, Message.HEADER, payload.length);
        Le.u32(out, 0, code);
        Le.u32(out, 4, flags); // as given: a test may write a wrong version
        Le.u32(out, 8, payload.length);
        return Message.HEADER + payload.length;
    }
}
