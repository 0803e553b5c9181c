package io.jslirp.link;

import io.jslirp.sys.Errno;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Sockets;
import io.jslirp.util.Log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Unix sockets bound to filesystem paths, for the links QEMU connects to. */
final class SocketFiles {
    private SocketFiles() {}

    /**
     * Binds the new unix socket fd (or -errno from creating it) to path, replacing a stale socket
     * file there; returns fd. On failure closes fd and throws IllegalArgumentException saying why.
     */
    static int bind(int fd, String path) {
        if (fd < 0) throw new IllegalArgumentException("cannot create a unix socket: " + Errno.describe(-fd));
        try {
            Files.deleteIfExists(Path.of(path));
        } catch (IOException e) {
            Libc.close(fd);
            throw new IllegalArgumentException("cannot replace " + path + ": " + e.getMessage());
        }
        int r = Sockets.bindUnix(fd, path);
        if (r < 0) {
            Libc.close(fd);
            throw new IllegalArgumentException("cannot bind " + path + ": " + Errno.describe(-r));
        }
        return fd;
    }

    /** Removes the socket file at path (when the link closes). */
    static void remove(String path) {
        try {
            Files.deleteIfExists(Path.of(path));
        } catch (IOException e) {
            Log.debug(() -> "cannot remove " + path + ": " + e.getMessage());
        }
    }
}
