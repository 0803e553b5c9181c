package io.jslirp.sys;

import java.io.Serial;

/** A failed set-up system call; the message reads like {@code "open /dev/net/tun: Permission denied (EACCES)"}. */
public final class SysException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final String what;
    private final int errno;

    /** @param what the operation and its object, e.g. {@code "open /dev/net/tun"} */
    public SysException(String what, int errno) {
        this.what = what;
        this.errno = errno;
    }

    public int errno() {
        return errno;
    }

    /**
     * Made when asked for: describing errno links libc's strerror, for milliseconds, and some
     * failures are expected and passed over (a user namespace may refuse a tap's queue length).
     */
    @Override
    public String getMessage() {
        return what + ": " + Errno.describe(errno);
    }
}
