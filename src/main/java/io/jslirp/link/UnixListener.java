package io.jslirp.link;

import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.sys.UnixSocketFile;

/** A listening unix stream socket at a path, and the socket file it owns (QEMU's stream netdev, vhost-user). */
record UnixListener(int fd, UnixSocketFile file) {
    /**
     * Listens at path, replacing only a stale socket file there (see {@link UnixSocketFile}).
     * Throws IllegalArgumentException when that fails, naming the path as role.
     */
    static UnixListener listen(String path, String role) {
        int fd = Sockets.unixStream();
        UnixSocketFile file = UnixSocketFile.bind(fd, path, role, false);
        int r = Sockets.listen(fd, 4);
        if (r < 0) {
            Libc.close(fd);
            file.release();
            throw new IllegalArgumentException("cannot set up " + role + " " + path + ": " + Errno.describe(-r));
        }
        return new UnixListener(fd, file);
    }
}
