package io.jslirp.cli;

import io.jslirp.bypass.ConnectBypass;
import io.jslirp.engine.Engine;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Seccomp;
import io.jslirp.sys.SeccompNotify;
import io.jslirp.sys.Sockets;
import io.jslirp.util.Log;

/** {@code jslirp run --bypass}: the filter on every thread before the command starts, and its listener served by the engine. */
final class Bypass {
    private Bypass() {}

    /** A new TCP socket's buffer sizes in the calling thread's network namespace (the command's). */
    static ConnectBypass.Defaults defaults() {
        int fd = Sockets.tcp4();
        try {
            return new ConnectBypass.Defaults(Sockets.getInt(fd, Sockets.SOL_SOCKET, Sockets.SO_SNDBUF),
                    Sockets.getInt(fd, Sockets.SOL_SOCKET, Sockets.SO_RCVBUF));
        } finally {
            Libc.close(fd);
        }
    }

    /**
     * Installs the bypass's filter on every thread of this JVM (so on the command it starts next)
     * and has engine serve its listener. Where the kernel or the C library does not allow it, says
     * so in one line and returns false: the command's connections then all go through the stack.
     */
    static boolean start(Engine engine, ConnectBypass.Defaults defaults) {
        int listener;
        try {
            long[] code = SeccompNotify.libcCode();
            listener = Seccomp.installConnectListener(code[0], code[1]);
        } catch (RuntimeException e) {
            Log.warn("no socket bypass: " + Main.oneLine(e) + " (every connection goes through the stack)");
            return false;
        }
        SeccompNotify notify = new SeccompNotify(listener);
        engine.transport().bypassConnects(notify, defaults);
        engine.atShutdown(notify::close);
        return true;
    }
}
