package io.jslirp.sys;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The kernel's sockets, made in another network namespace: socket(2) runs on a platform thread
 * that stays in that namespace (setns once, when opened), and every other call runs on the
 * caller's thread, since a socket keeps the namespace it was made in (binding, connecting and
 * listening happen there). Making a socket waits for that thread (some microseconds): once per
 * listener or connection, never per byte.
 */
public final class NetnsSockets extends SystemSockets implements AutoCloseable {
    private final ExecutorService resident;
    private final String netnsPath;

    private NetnsSockets(ExecutorService resident, String netnsPath) {
        this.resident = resident;
        this.netnsPath = netnsPath;
    }

    /** Sockets of the namespace at netnsPath (e.g. /proc/PID/ns/net); throws {@link SysException} if it cannot be joined. */
    public static NetnsSockets open(String netnsPath) {
        ExecutorService resident = Executors.newSingleThreadExecutor(
                Thread.ofPlatform().name("netns sockets " + netnsPath).daemon(true).factory());
        int fd;
        try {
            fd = Libc.open(netnsPath, Libc.O_RDONLY | Libc.O_CLOEXEC);
        } catch (SysException e) {
            resident.shutdown();
            throw e;
        }
        NetnsSockets sockets = new NetnsSockets(resident, netnsPath);
        try {
            sockets.call(() -> {
                Namespaces.setns(fd, Namespaces.CLONE_NEWNET);
                return 0;
            });
        } catch (RuntimeException e) {
            resident.shutdown();
            throw e;
        } finally {
            Libc.close(fd);
        }
        return sockets;
    }

    /** The namespace's path, as opened. */
    public String netnsPath() {
        return netnsPath;
    }

    /** Runs task on the thread in the namespace and returns its result (its exception, unchecked). */
    public <T> T call(Callable<T> task) {
        Future<T> f = resident.submit(task);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            if (e.getCause() instanceof Error err) throw err;
            throw new IllegalStateException(e.getCause());
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    @Override
    public int tcp(boolean ipv6) {
        return call(() -> super.tcp(ipv6));
    }

    @Override
    public int udp(boolean ipv6) {
        return call(() -> super.udp(ipv6));
    }

    @Override
    public int ping(boolean ipv6) {
        return call(() -> super.ping(ipv6));
    }

    /** Ends the thread in the namespace; sockets made there stay open and in it. */
    @Override
    public void close() {
        resident.shutdown();
    }
}
