package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A file mapped shared, readable and writable (mmap(2) with MAP_SHARED): another process's memory
 * seen through the descriptor it gave, as a VM's guest memory is. The mapping starts at a
 * boundary below the offset asked for, since mmap takes only page-aligned offsets and a
 * front-end's need not be; {@link #segment()} is exactly the bytes asked for.
 */
public final class SharedMapping {
    /**
     * Where a mapping starts below its offset: a multiple of every page size Linux uses on the
     * architectures served (4, 16 and 64 KiB), so no call is needed to learn the page size.
     */
    static final long ALIGN = 64 << 10;
    private static final long MMAP = nr(9, 222), MUNMAP = nr(11, 215), FSTAT = nr(5, 80);
    /** Where st_size lies in struct stat, the same on x86-64 and on AArch64's generic layout. */
    private static final long ST_SIZE = 48, STAT_SIZE = 144;
    private static final int PROT_READ_WRITE = 0x3, MAP_SHARED = 0x1;

    private final long base, length;
    private final MemorySegment segment;
    private boolean unmapped;

    private SharedMapping(long base, long length, MemorySegment segment) {
        this.base = base;
        this.length = length;
        this.segment = segment;
    }

    /**
     * Maps size bytes of fd from offset; throws {@link SysException}, or IllegalArgumentException
     * when the file is shorter than offset + size (the descriptor stays the caller's). A mapping
     * past the end of its file is no error for mmap, but a touch there kills the process (SIGBUS):
     * the file's size is checked first.
     */
    public static SharedMapping map(int fd, long offset, long size) {
        if (offset < 0 || size <= 0 || offset + size < 0) throw new IllegalArgumentException("mapping " + size + " bytes at offset " + offset);
        long fileSize = fileSize(fd);
        if (offset + size > fileSize) {
            throw new IllegalArgumentException(size + " bytes at offset 0x" + Long.toHexString(offset) + " of a file of " + fileSize + " bytes");
        }
        long from = offset & ~(ALIGN - 1), length = size + (offset - from);
        MemorySegment err = scratch().errno;
        long r = syscall(MMAP, err, 0L, length, PROT_READ_WRITE, MAP_SHARED, fd, from);
        if (r == -1) throw new SysException("mmap of " + size + " bytes at offset 0x" + Long.toHexString(offset), errno(err));
        return new SharedMapping(r, length, MemorySegment.ofAddress(r + (offset - from)).reinterpret(size));
    }

    /** fd's size in bytes (fstat); throws {@link SysException}. */
    public static long fileSize(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment st = arena.allocate(STAT_SIZE, 8);
            MemorySegment err = scratch().errno;
            if (syscall(FSTAT, err, fd, st.address()) < 0) throw new SysException("fstat of a memory descriptor", errno(err));
            return st.get(ValueLayout.JAVA_LONG, ST_SIZE);
        }
    }

    /** The bytes asked for. Not to be touched after {@link #unmap}. */
    public MemorySegment segment() {
        return segment;
    }

    /** Unmaps, once. */
    public void unmap() {
        if (unmapped) return;
        unmapped = true;
        syscall(MUNMAP, scratch().errno, base, length);
    }
}
