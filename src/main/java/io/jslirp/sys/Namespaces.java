package io.jslirp.sys;

import static io.jslirp.sys.Native.downcall;
import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.rethrow;
import static io.jslirp.sys.Native.scratch;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Linux namespaces. setns and unshare(CLONE_NEWNET) change only the calling thread's namespace, so
 * they must run on a dedicated platform thread: a virtual thread would move between carriers.
 */
public final class Namespaces {
    private Namespaces() {}

    public static final int CLONE_NEWNET = 0x40000000, CLONE_NEWUSER = 0x10000000;

    private static final MethodHandle SETNS =
            downcall("setns", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle UNSHARE =
            downcall("unshare", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    /** Moves the calling thread into the namespace open as fd; throws {@link SysException}. */
    public static void setns(int fd, int nstype) {
        MemorySegment err = scratch().errno;
        int r;
        try {
            r = (int) SETNS.invokeExact(err, fd, nstype);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (r < 0) {
            throw new SysException("setns fd " + fd, errno(err));
        }
    }

    /** Gives the calling thread new namespaces (CLONE_NEWNET: this thread only); throws {@link SysException}. */
    public static void unshare(int flags) {
        MemorySegment err = scratch().errno;
        int r;
        try {
            r = (int) UNSHARE.invokeExact(err, flags);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (r < 0) {
            throw new SysException("unshare 0x" + Integer.toHexString(flags), errno(err));
        }
    }

    /**
     * Runs task on a new platform thread that first joins the network namespace at netnsPath (e.g.
     * /proc/PID/ns/net), and returns its result or rethrows its exception. Descriptors the task opens
     * (sockets, a tap) stay bound to that namespace after the thread ends.
     */
    public static <T> T callInNetns(String netnsPath, Callable<T> task) throws Exception {
        FutureTask<T> future = new FutureTask<>(() -> {
            int fd = Libc.open(netnsPath, Libc.O_RDONLY | Libc.O_CLOEXEC);
            try {
                setns(fd, CLONE_NEWNET);
            } finally {
                Libc.close(fd);
            }
            return task.call();
        });
        Thread.ofPlatform().name("netns " + netnsPath).start(future).join();
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            throw (Error) cause;
        }
    }
}
