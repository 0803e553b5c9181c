package io.jslirp.link;

import io.jslirp.loop.EventLoop;
import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;

import java.lang.foreign.MemorySegment;

/**
 * A tap device (IFF_TAP | IFF_NO_PI), opened with one descriptor per queue: one read or write is
 * one Ethernet frame. Frames toward the guest go out on their flow's queue ({@link FlowLanes}).
 */
public final class TapLink implements Link {
    private final int[] fds;
    private final FlowLanes lanes;

    /** Takes ownership of the open, non-blocking descriptors of one tap device, one per queue. */
    public TapLink(int... fds) {
        if (fds.length == 0) throw new IllegalArgumentException("a tap needs at least one descriptor");
        this.fds = fds.clone();
        this.lanes = new FlowLanes(fds.length);
    }

    @Override
    public int queues() {
        return fds.length;
    }

    @Override
    public int fd(int queue) {
        return fds[queue];
    }

    @Override
    public int receive(int queue, MemorySegment buffer) {
        int n = Libc.read(fds[queue], buffer, 0, (int) buffer.byteSize());
        if (n >= 0) return n;
        return n == -Errno.EAGAIN || n == -Errno.EINTR ? 0 : -1;
    }

    @Override
    public boolean send(MemorySegment frame, int length) {
        int queue = lanes.laneOf(frame, length, EventLoop.now());
        return Libc.write(fds[queue], frame, 0, length) == length;
    }

    @Override
    public void close() {
        for (int fd : fds) Libc.close(fd);
    }
}
