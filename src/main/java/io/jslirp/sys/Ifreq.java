package io.jslirp.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/** struct ifreq: 40 bytes on 64-bit Linux, the name in the first 16, a union (flags, mtu, sockaddr) at 16. */
final class Ifreq {
    private Ifreq() {}

    static final long SIZE = 40;
    static final long UNION = 16;
    private static final int IFNAMSIZ = 16;

    /** A zeroed (arena memory is) ifreq carrying ifname; IllegalArgumentException if the name does not fit. */
    static MemorySegment allocate(Arena arena, String ifname) {
        byte[] name = ifname.getBytes(StandardCharsets.US_ASCII);
        if (name.length == 0 || name.length >= IFNAMSIZ) {
            throw new IllegalArgumentException("bad interface name (1 to 15 characters): " + ifname);
        }
        MemorySegment ifr = arena.allocate(SIZE, 8);
        MemorySegment.copy(name, 0, ifr, ValueLayout.JAVA_BYTE, 0, name.length);
        return ifr;
    }
}
