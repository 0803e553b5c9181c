package io.jslirp.sys;

import io.jslirp.util.FileErrors;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/**
 * A unix socket bound at a filesystem path that a user named (an API socket, a VM's socket), taken
 * without losing anything that was there, and removed at the end only if it is still ours.
 *
 * <p>What may be at the path, and what happens:
 * <ul>
 * <li>nothing: the socket is bound there;
 * <li>anything but a socket (a file, a directory, a symbolic link): refused, "it exists and is not
 *     a socket", and left as it is;
 * <li>a socket a live program answers on (connect succeeds, or its backlog is full, or it is of the
 *     other type): refused, "in use by a running instance", and left as it is;
 * <li>a stale socket (connect gets ECONNREFUSED: nothing is bound to it any more): replaced.
 * </ul>
 *
 * <p>Races between instances are settled by a lock file next to the socket, PATH.lock, which the
 * instance that owns PATH holds (flock, exclusive) for as long as it serves there:
 * <ol>
 * <li>open PATH.lock (created if need be, never following a link), flock it without waiting; a
 *     lock taken means another instance owns PATH: refused, "in use", without looking further (a
 *     connect would cost a live QEMU link its VM's connection). Then check that PATH.lock still
 *     names the file locked (an instance that ends removes it while holding the lock); if not, the
 *     lock was on a file that is gone: start again.
 * <li>bind. EADDRINUSE: look at what is there (as above); only a socket that refuses a connect is
 *     unlinked, then bind is tried once more; EADDRINUSE again means a program that does not use
 *     the lock (an older jslirp, another tool) has just bound there: refused, "in use".
 * </ol>
 * Two instances started at once for one path: exactly one gets the lock; the other is refused
 * before it touches anything. Between bind and listen the owner already holds the lock, so nobody
 * probes the bound-but-not-yet-listening socket, finds it refusing, and takes it for stale.
 *
 * <p>At the end ({@link #release}): the socket file is unlinked only if PATH still names the one
 * bound here (device, inode and change time), not one someone put there since; then PATH.lock is unlinked (only
 * if it is the file locked, and empty: a lock file never gets content) and the lock released. An
 * instance killed before that leaves both files; the next one finds the lock free and the socket
 * stale, and takes over.
 */
public final class UnixSocketFile {
    private static final int SO_TYPE = 3;
    /** S_IFMT and S_IFSOCK of st_mode. */
    private static final int S_IFMT = 0170000, S_IFSOCK = 0140000;
    private static final int MAX_PATH_BYTES = 107;
    /** Tries at the lock file when an ending instance removes it under our hands (it cannot go on for long). */
    private static final int LOCK_TRIES = 100;

    private final Path path;
    private final Path lockPath;
    private int lockFd;
    private final Object socketKey;

    private UnixSocketFile(Path path, Path lockPath, int lockFd, Object socketKey) {
        this.path = path;
        this.lockPath = lockPath;
        this.lockFd = lockFd;
        this.socketKey = socketKey;
    }

    /**
     * Binds fd (a new unix socket, or -errno from creating one) to path as described above, role
     * naming what the socket is for in messages ("the API socket"); with ownerOnly the socket file
     * is made readable and writable by its owner only (before a stream socket listens, nobody can
     * connect through the file). Throws IllegalArgumentException with one line saying why it
     * cannot, fd then closed and nothing at path touched.
     */
    public static UnixSocketFile bind(int fd, String path, String role, boolean ownerOnly) {
        Path p = Path.of(path);
        try {
            if (fd < 0) throw setUp(p, role, Errno.describe(-fd));
            int length = path.getBytes(StandardCharsets.UTF_8).length;
            if (length == 0 || length > MAX_PATH_BYTES) {
                throw setUp(p, role, "a unix socket path must be 1 to " + MAX_PATH_BYTES + " bytes long, not " + length);
            }
            if (Look.notASocket(p)) throw notASocket(p, role);
            Path lockPath = Path.of(path + ".lock");
            int lockFd = lock(p, lockPath, role);
            try {
                bindClaimed(fd, p, role);
                if (ownerOnly) Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
                return new UnixSocketFile(p, lockPath, lockFd, Look.key(p));
            } catch (IOException e) {
                unlock(lockPath, lockFd);
                throw setUp(p, role, FileErrors.reason(e));
            } catch (IllegalArgumentException e) {
                unlock(lockPath, lockFd);
                throw e;
            }
        } catch (IllegalArgumentException e) {
            if (fd >= 0) Libc.close(fd);
            throw e;
        }
    }

    /**
     * A socket file that an earlier program of this process bound and locked (before an exec that
     * kept the lock's descriptor open): {@link #release} lets the lock go and leaves both files,
     * which the next instance finds stale and takes over (a confined program cannot reach them).
     */
    public static UnixSocketFile inherited(String path, int lockFd) {
        return new UnixSocketFile(Path.of(path), Path.of(path + ".lock"), lockFd, null);
    }

    /** The path the socket is bound to. */
    public Path path() {
        return path;
    }

    /** The descriptor that holds PATH.lock, to be kept open across an exec. */
    public int lockDescriptor() {
        return lockFd;
    }

    /** Removes the socket file if it is still the one bound here, then the lock file, and releases the lock. Once. */
    public void release() {
        if (lockFd < 0) return;
        try {
            if (socketKey != null && socketKey.equals(Look.key(path))) Files.delete(path);
        } catch (IOException e) {
            io.jslirp.util.Log.debug(() -> "cannot remove " + path + ": " + FileErrors.reason(e));
        }
        unlock(lockPath, lockFd);
        lockFd = -1;
    }

    /** Takes PATH.lock (see the class comment): its descriptor, the lock held. */
    private static int lock(Path p, Path lockPath, String role) {
        for (int i = 0; i < LOCK_TRIES; i++) {
            int fd = Libc.openCreate(lockPath.toString(), Libc.O_RDWR | Libc.O_CREAT | Libc.O_CLOEXEC | Libc.O_NOFOLLOW, 0600);
            if (fd < 0) {
                int e = -fd;
                if (e == Errno.ENOENT || e == Errno.ENOTDIR || e == Errno.EACCES || e == Errno.EROFS) throw setUp(p, role, Errno.describe(e));
                throw setUp(p, role, "its lock file " + lockPath + ": " + Errno.describe(e));
            }
            int r = Libc.flock(fd, Libc.LOCK_EX | Libc.LOCK_NB);
            if (r == -Errno.EAGAIN) {
                Libc.close(fd);
                throw inUse(p, role);
            }
            if (r < 0) {
                Libc.close(fd);
                throw setUp(p, role, "cannot lock " + lockPath + ": " + Errno.describe(-r));
            }
            Object held = Look.key(Path.of("/proc/self/fd/" + fd), true);
            Object named = Look.key(lockPath);
            if (held != null && held.equals(named)) return fd;
            Libc.close(fd); // the file locked was removed by the instance that held it: try the one there now
        }
        throw inUse(p, role);
    }

    /** Binds fd at p with the lock held: replaces a stale socket, refuses anything else that is there. */
    private static void bindClaimed(int fd, Path p, String role) throws IOException {
        boolean replaced = false;
        for (int attempt = 0; ; attempt++) {
            int r = Sockets.bindUnix(fd, p.toString());
            if (r == 0) return;
            if (r != -Errno.EADDRINUSE || attempt >= 2) throw r == -Errno.EADDRINUSE ? inUse(p, role) : setUp(p, role, Errno.describe(-r));
            Map<String, Object> there;
            try {
                there = Files.readAttributes(p, "unix:mode,dev,ino,ctime", LinkOption.NOFOLLOW_LINKS);
            } catch (NoSuchFileException gone) {
                continue; // removed since: bind again
            }
            if (((Integer) there.get("mode") & S_IFMT) != S_IFSOCK) throw notASocket(p, role);
            if (replaced) throw inUse(p, role); // bound by a program that does not take the lock, just now
            int probe = probe(fd, p);
            if (probe == -Errno.ENOENT) continue;
            if (probe != -Errno.ECONNREFUSED) {
                if (probe == 0 || probe == -Errno.EAGAIN || probe == -Errno.EINPROGRESS || probe == -Errno.EPROTOTYPE) throw inUse(p, role);
                throw setUp(p, role, Errno.describe(-probe));
            }
            // Stale: nothing is bound to it. Unlinked only if it is still the socket looked at.
            Object now = Look.key(p);
            if (now != null && now.equals(Look.key(there))) Files.deleteIfExists(p);
            replaced = true;
        }
    }

    /** Connects a socket of fd's type to p: 0 (someone answers), or -errno (-ECONNREFUSED: stale). */
    private static int probe(int fd, Path p) {
        int type = Sockets.getInt(fd, Sockets.SOL_SOCKET, SO_TYPE);
        int s = type == 2 ? Sockets.unixDgram() : Sockets.unixStream();
        if (s < 0) return s;
        try {
            return Sockets.connectUnix(s, p.toString());
        } finally {
            Libc.close(s);
        }
    }

    /** Removes the lock file if it is still the one locked by fd and empty, then releases the lock. */
    private static void unlock(Path lockPath, int fd) {
        try {
            Object held = Look.key(Path.of("/proc/self/fd/" + fd), true);
            if (held != null && held.equals(Look.key(lockPath)) && Files.size(lockPath) == 0) Files.delete(lockPath);
        } catch (IOException e) {
            io.jslirp.util.Log.debug(() -> "cannot remove " + lockPath + ": " + FileErrors.reason(e));
        }
        Libc.close(fd);
    }

    private static IllegalArgumentException notASocket(Path p, String role) {
        return new IllegalArgumentException("cannot use " + p + " as " + role + ": it exists and is not a socket");
    }

    private static IllegalArgumentException inUse(Path p, String role) {
        return new IllegalArgumentException("cannot use " + p + " as " + role + ": in use by a running instance");
    }

    private static IllegalArgumentException setUp(Path p, String role, String reason) {
        return new IllegalArgumentException("cannot set up " + role + " " + p + ": " + reason);
    }

    /** Files looked at without following links: what a path names. */
    private static final class Look {
        private Look() {}

        static boolean notASocket(Path p) {
            try {
                int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
                return (mode & S_IFMT) != S_IFSOCK;
            } catch (IOException | RuntimeException e) {
                return false; // nothing there, or nothing we may look at: bind says what
            }
        }

        /**
         * Device, inode and change time of the file p names (not following a link), or null when
         * there is none: the change time tells a file apart from a later one that got the same
         * inode number.
         */
        static Object key(Path p) {
            return key(p, false);
        }

        static Object key(Path p, boolean follow) {
            try {
                Map<String, Object> a = follow ? Files.readAttributes(p, "unix:dev,ino,ctime")
                        : Files.readAttributes(p, "unix:dev,ino,ctime", LinkOption.NOFOLLOW_LINKS);
                return key(a);
            } catch (IOException | RuntimeException e) {
                return null;
            }
        }

        static Object key(Map<String, Object> attributes) {
            return java.util.List.of(attributes.get("dev"), attributes.get("ino"), attributes.get("ctime"));
        }
    }
}
