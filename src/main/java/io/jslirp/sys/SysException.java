package io.jslirp.sys;

import java.io.Serial;

/** A failed set-up system call; the message reads like {@code "open /dev/net/tun: Permission denied (EACCES)"}. */
public final class SysException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final int errno;

    /** @param what the operation and its object, e.g. {@code "open /dev/net/tun"} */
    public SysException(String what, int errno) {
        super(what + ": " + Errno.describe(errno));
        this.errno = errno;
    }

    public int errno() {
        return errno;
    }
}
