package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Anonymous memory behind a descriptor (memfd_create(2)), to be mapped shared by whoever is given it, as QEMU's guest memory is. */
public final class MemFd {
    private static final long MEMFD_CREATE = nr(319, 279), FTRUNCATE = nr(77, 46);
    private static final int MFD_CLOEXEC = 0x1;

    private MemFd() {}

    /** A new memory file named name of size bytes (zeroes): its descriptor, the caller's to close; throws {@link SysException}. */
    public static int create(String name, long size) {
        MemorySegment err = scratch().errno;
        int fd;
        try (Arena arena = Arena.ofConfined()) {
            fd = (int) syscall(MEMFD_CREATE, err, arena.allocateFrom(name).address(), MFD_CLOEXEC);
        }
        if (fd < 0) throw new SysException("memfd_create", errno(err));
        if (syscall(FTRUNCATE, err, fd, size) < 0) {
            int e = errno(err);
            Libc.close(fd);
            throw new SysException("ftruncate of a memory file to " + size + " bytes", e);
        }
        return fd;
    }
}
