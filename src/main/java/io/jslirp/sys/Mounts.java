package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The mount calls a sandbox is built with: a new root of bind mounts, then pivot_root into it. They
 * act on the calling thread's mount namespace and root, so they belong on the one platform thread
 * that has unshared them ({@link Namespaces#unshareMounts}). Each throws {@link SysException}
 * naming the call and the paths.
 */
public final class Mounts {
    private Mounts() {}

    public static final long MS_RDONLY = 1, MS_NOSUID = 2, MS_NODEV = 4, MS_NOEXEC = 8, MS_REMOUNT = 32,
            MS_NOATIME = 1024, MS_NODIRATIME = 2048, MS_BIND = 4096, MS_REC = 16384, MS_PRIVATE = 1 << 18,
            MS_SLAVE = 1 << 19, MS_RELATIME = 1 << 21;
    public static final int MNT_DETACH = 2;

    private static final long MOUNT = nr(165, 40), UMOUNT2 = nr(166, 39), PIVOT_ROOT = nr(155, 41), CHDIR = nr(80, 49),
            FCHDIR = nr(81, 50), CHROOT = nr(161, 51), STATFS = nr(137, 43);
    /** statfs(2)'s f_flags (ST_*), at the same offset in struct statfs on both 64-bit ABIs. */
    private static final long F_FLAGS_OFFSET = 80, STATFS_SIZE = 120;
    private static final long ST_RDONLY = 1, ST_NOSUID = 2, ST_NODEV = 4, ST_NOEXEC = 8, ST_NOATIME = 1024,
            ST_NODIRATIME = 2048, ST_RELATIME = 4096;

    /** mount(2): source or fstype or data may be null. */
    public static void mount(String source, String target, String fstype, long flags, String data) {
        MemorySegment err = scratch().errno;
        int r;
        try (Arena arena = Arena.ofConfined()) {
            r = (int) syscall(MOUNT, err, string(arena, source), string(arena, target), string(arena, fstype), flags,
                    string(arena, data));
        }
        if (r < 0) throw new SysException("mount " + (source == null ? "" : source + " ") + target, errno(err));
    }

    /** Bind-mounts the file or directory source over target (mount --bind). */
    public static void bind(String source, String target) {
        mount(source, target, null, MS_BIND, null);
    }

    /**
     * Binds source (a file or directory, and the mounts beneath it) at target, then remounts that
     * with flags (MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC) added to those the source's mount has
     * (in a user namespace the kernel refuses to clear flags its owner set).
     */
    public static void bindRestricted(String source, String target, long flags) {
        mount(source, target, null, MS_BIND | MS_REC, null);
        mount(null, target, null, MS_REMOUNT | MS_BIND | flags | lockedFlags(target), null);
    }

    /** The mount flags of the filesystem at path that a remount must keep (statfs's f_flags as MS_*). */
    static long lockedFlags(String path) {
        MemorySegment err = scratch().errno;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(STATFS_SIZE, 8);
            if ((int) syscall(STATFS, err, string(arena, path), buf.address()) < 0) throw new SysException("statfs " + path, errno(err));
            long st = buf.get(ValueLayout.JAVA_LONG, F_FLAGS_OFFSET);
            long ms = 0;
            if ((st & ST_RDONLY) != 0) ms |= MS_RDONLY;
            if ((st & ST_NOSUID) != 0) ms |= MS_NOSUID;
            if ((st & ST_NODEV) != 0) ms |= MS_NODEV;
            if ((st & ST_NOEXEC) != 0) ms |= MS_NOEXEC;
            if ((st & ST_NOATIME) != 0) ms |= MS_NOATIME;
            if ((st & ST_NODIRATIME) != 0) ms |= MS_NODIRATIME;
            if ((st & ST_RELATIME) != 0) ms |= MS_RELATIME;
            return ms;
        }
    }

    /** umount2(2). */
    public static void unmount(String target, int flags) {
        MemorySegment err = scratch().errno;
        int r;
        try (Arena arena = Arena.ofConfined()) {
            r = (int) syscall(UMOUNT2, err, string(arena, target), flags);
        }
        if (r < 0) throw new SysException("umount " + target, errno(err));
    }

    /** pivot_root(2): the calling thread's mount namespace gets newRoot as its root, the old one at putOld. */
    public static void pivotRoot(String newRoot, String putOld) {
        MemorySegment err = scratch().errno;
        int r;
        try (Arena arena = Arena.ofConfined()) {
            r = (int) syscall(PIVOT_ROOT, err, string(arena, newRoot), string(arena, putOld));
        }
        if (r < 0) throw new SysException("pivot_root " + newRoot + " " + putOld, errno(err));
    }

    /** chdir(2) of the calling thread (its own once it has unshared CLONE_FS). */
    public static void chdir(String path) {
        MemorySegment err = scratch().errno;
        int r;
        try (Arena arena = Arena.ofConfined()) {
            r = (int) syscall(CHDIR, err, string(arena, path));
        }
        if (r < 0) throw new SysException("chdir " + path, errno(err));
    }

    /**
     * Makes the directory that dirFd names (an O_PATH descriptor will do) the calling thread's
     * working directory and root: fchdir, then chroot("."). The threads that share its root and
     * working directory (those it started: pthreads are made with CLONE_FS) move with it. The
     * directory may be in another mount namespace: a root is a place, not a namespace.
     */
    public static void enterRoot(int dirFd) {
        MemorySegment err = scratch().errno;
        if ((int) syscall(FCHDIR, err, dirFd) < 0) throw new SysException("fchdir", errno(err));
        int r;
        try (Arena arena = Arena.ofConfined()) {
            r = (int) syscall(CHROOT, err, string(arena, "."));
        }
        if (r < 0) throw new SysException("chroot .", errno(err));
    }

    private static long string(Arena arena, String s) {
        return s == null ? 0 : arena.allocateFrom(s).address();
    }
}
