package io.jslirp.link;

import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;

import java.lang.foreign.MemorySegment;

/** A tap device (IFF_TAP | IFF_NO_PI): one read or write is one Ethernet frame. */
public final class TapLink implements Link {
    private final int fd;

    /** Takes ownership of an open, non-blocking tap descriptor. */
    public TapLink(int fd) {
        this.fd = fd;
    }

    @Override
    public int fd() {
        return fd;
    }

    @Override
    public int receive(MemorySegment buffer) {
        int n = Libc.read(fd, buffer, 0, (int) buffer.byteSize());
        if (n >= 0) return n;
        return n == -Errno.EAGAIN || n == -Errno.EINTR ? 0 : -1;
    }

    @Override
    public boolean send(MemorySegment frame, int length) {
        return Libc.write(fd, frame, 0, length) == length;
    }

    @Override
    public void close() {
        Libc.close(fd);
    }
}
