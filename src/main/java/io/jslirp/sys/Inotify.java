package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * An inotify instance (inotify_init1, non-blocking and close-on-exec): a descriptor that becomes
 * readable, for epoll, when a watched file or directory changes. pasta's stand-in watches the
 * directory of its --netns file: Podman stops it by unmounting and deleting that file, and sends
 * no signal. Meant for one thread.
 */
public final class Inotify implements AutoCloseable {
    /** Event bits (include/uapi/linux/inotify.h), for {@link #watch} masks and {@link Event#mask}. */
    public static final int IN_MOVED_FROM = 0x40, IN_MOVED_TO = 0x80, IN_CREATE = 0x100, IN_DELETE = 0x200,
            IN_DELETE_SELF = 0x400, IN_MOVE_SELF = 0x800, IN_UNMOUNT = 0x2000, IN_Q_OVERFLOW = 0x4000,
            IN_IGNORED = 0x8000, IN_ONLYDIR = 0x01000000, IN_ISDIR = 0x40000000;

    private static final int IN_NONBLOCK = 0x800, IN_CLOEXEC = 0x80000;
    private static final long INIT1 = nr(294, 26), ADD_WATCH = nr(254, 27);
    /** struct inotify_event: int wd, uint32 mask, cookie, len, then len bytes of NUL-padded name. */
    private static final int HEADER = 16;
    /** Room for many events; one needs at most HEADER + NAME_MAX + 1. */
    private static final int BUFFER = 4096;
    /** The names come as the kernel has them; decode them as the JVM decodes file names. */
    private static final Charset NAMES = Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"), StandardCharsets.UTF_8);

    private final int fd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment buffer = arena.allocate(BUFFER, 8);

    /** Throws {@link SysException}, e.g. when the user's limit of instances (fs.inotify.max_user_instances) is reached. */
    public Inotify() {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(INIT1, err, IN_NONBLOCK | IN_CLOEXEC);
        if (r < 0) {
            arena.close();
            throw new SysException("inotify_init1", errno(err));
        }
        fd = r;
    }

    /** The descriptor, to add to an epoll set for input. */
    public int fd() {
        return fd;
    }

    /**
     * Watches path for the events in mask (e.g. {@code IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF}
     * on a directory): the watch descriptor that events carry. Throws {@link SysException}, e.g.
     * "watch /run/netns: No such file or directory (ENOENT)".
     */
    public int watch(String path, int mask) {
        MemorySegment err = scratch().errno;
        int r;
        try (Arena a = Arena.ofConfined()) {
            r = (int) syscall(ADD_WATCH, err, fd, a.allocateFrom(path).address(), mask);
        }
        if (r < 0) throw new SysException("watch " + path, errno(err));
        return r;
    }

    /** The events waiting, oldest first; none when nothing happened since the last call. */
    public List<Event> read() {
        List<Event> events = new ArrayList<>();
        while (true) {
            int n = Libc.read(fd, buffer, 0, BUFFER);
            if (n == -Errno.EAGAIN || n == 0) return events;
            if (n == -Errno.EINTR) continue;
            if (n < 0) throw new SysException("read inotify events", -n);
            parse(buffer, n, events);
        }
    }

    private static void parse(MemorySegment buf, int length, List<Event> into) {
        int off = 0;
        while (off + HEADER <= length) {
            int wd = buf.get(JAVA_INT_UNALIGNED, off);
            int mask = buf.get(JAVA_INT_UNALIGNED, off + 4);
            int nameLength = buf.get(JAVA_INT_UNALIGNED, off + 12);
            int end = off + HEADER;
            while (end < off + HEADER + nameLength && buf.get(JAVA_BYTE, end) != 0) end++;
            byte[] name = buf.asSlice(off + HEADER, end - off - HEADER).toArray(JAVA_BYTE);
            into.add(new Event(wd, mask, new String(name, NAMES)));
            off += HEADER + nameLength;
        }
    }

    /**
     * One event: its watch, its bits, and the name of the file it concerns inside a watched
     * directory ("" for the watched file or directory itself).
     */
    public record Event(int wd, int mask, String name) {
        /** Whether any of bits is set. */
        public boolean any(int bits) {
            return (mask & bits) != 0;
        }
    }

    @Override
    public void close() {
        Libc.close(fd);
        arena.close();
    }
}
