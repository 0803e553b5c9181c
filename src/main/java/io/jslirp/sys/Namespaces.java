package io.jslirp.sys;

import static io.jslirp.sys.Native.errno;
import static io.jslirp.sys.Native.nr;
import static io.jslirp.sys.Native.scratch;
import static io.jslirp.sys.Native.syscall;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Linux namespaces. setns and unshare(CLONE_NEWNET) change only the calling thread's namespace, so
 * they must run on a dedicated platform thread: a virtual thread would move between carriers.
 * So does unshare(CLONE_NEWPID): the calling thread's next child is the new namespace's PID 1,
 * and that thread can start no thread from then on.
 */
public final class Namespaces {
    private Namespaces() {}

    public static final int CLONE_NEWNET = 0x40000000, CLONE_NEWUSER = 0x10000000, CLONE_NEWPID = 0x20000000,
            CLONE_NEWNS = 0x20000, CLONE_FS = 0x200;

    private static final long SETNS = nr(308, 268), UNSHARE = nr(272, 97);
    /** ioctl on a namespace's descriptor: a descriptor of the user namespace that owns it. */
    private static final long NS_GET_USERNS = 0xb701;

    /** Moves the calling thread into the namespace open as fd; throws {@link SysException}. */
    public static void setns(int fd, int nstype) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(SETNS, err, fd, nstype);
        if (r < 0) {
            throw new SysException("setns fd " + fd, errno(err));
        }
    }

    /** Gives the calling thread new namespaces (CLONE_NEWNET: this thread only); throws {@link SysException}. */
    public static void unshare(int flags) {
        MemorySegment err = scratch().errno;
        int r = (int) syscall(UNSHARE, err, flags);
        if (r < 0) {
            throw new SysException("unshare 0x" + Integer.toHexString(flags), errno(err));
        }
    }

    /**
     * Gives the calling thread a mount namespace, root and working directory of its own (the
     * process's other threads keep theirs), every mount in it a slave: mounts and unmounts done in
     * it reach no other namespace, while the host's still reach it. Throws {@link SysException}.
     */
    public static void unshareMounts() {
        unshare(CLONE_FS | CLONE_NEWNS);
        Mounts.mount(null, "/", null, Mounts.MS_REC | Mounts.MS_SLAVE, null);
    }

    /**
     * Whether this process's mount namespace belongs to its own user namespace: made with it (as
     * the launcher's {@code unshare --user --mount} does), so that a mount here changes nothing
     * outside. The host's mount namespace belongs to the host's user namespace.
     */
    public static boolean ownsItsMountNamespace() {
        int mnt;
        try {
            mnt = Libc.open("/proc/self/ns/mnt", Libc.O_RDONLY | Libc.O_CLOEXEC);
        } catch (SysException e) {
            return false;
        }
        try {
            int owner = Native.ioctl(mnt, NS_GET_USERNS, 0);
            if (owner < 0) return false;
            try {
                return java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/fd/" + owner))
                        .equals(java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/ns/user")));
            } catch (java.io.IOException e) {
                return false;
            } finally {
                Libc.close(owner);
            }
        } finally {
            Libc.close(mnt);
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
