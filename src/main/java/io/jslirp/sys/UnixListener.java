package io.jslirp.sys;

/**
 * A listening unix stream socket at a path, and the socket file it owns: QEMU's stream netdev,
 * vhost-user, slirp4netns's API socket, pasta's control socket.
 */
public record UnixListener(int fd, UnixSocketFile file) {
    /**
     * Listens at path with room for backlog waiting clients, the socket file readable and writable
     * by its owner only when ownerOnly (set before it listens), replacing only a stale socket file
     * there (see {@link UnixSocketFile}). Throws IllegalArgumentException when that fails, naming
     * the path as role; nothing stays open then.
     */
    public static UnixListener listen(String path, String role, boolean ownerOnly, int backlog) {
        int fd = Sockets.unixStream();
        UnixSocketFile file;
        try {
            file = UnixSocketFile.bind(fd, path, role, ownerOnly);
        } catch (RuntimeException e) {
            Libc.close(fd);
            throw e;
        }
        int r = Sockets.listen(fd, backlog);
        if (r < 0) {
            Libc.close(fd);
            file.release();
            throw new IllegalArgumentException("cannot set up " + role + " " + path + ": " + Errno.describe(-r));
        }
        return new UnixListener(fd, file);
    }

    /** A listener an earlier program of this process set up at path, its descriptors kept across an exec. */
    public static UnixListener inherited(String path, int fd, int lockFd) {
        return new UnixListener(fd, UnixSocketFile.inherited(path, lockFd));
    }

    /** Closes the socket and removes its file (if still this one's). */
    public void close() {
        Libc.close(fd);
        file.release();
    }
}
