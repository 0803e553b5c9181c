package io.jslirp.sys;

/**
 * Links the system call downcall on a thread of its own while the caller goes on parsing its
 * command line: the JDK spins its stub for tens of milliseconds, and on a machine with a free core
 * that time no longer adds to start-up. A caller that makes a system call first waits for the
 * linking here.
 */
public final class Prelink {
    private Prelink() {
    }

    /** Starts the linking (a daemon thread: it does not keep the JVM alive). */
    public static void startInBackground() {
        // Any system call will do: the first one initializes Native, which links the downcall.
        Thread.ofPlatform().daemon().name("jslirp-prelink").start(Libc::getpid);
    }
}
