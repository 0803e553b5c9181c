package io.jslirp.sys;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * Run in a JVM of its own by {@link SeccompTest}: installs the filter, then reports (one line
 * each) what a blocked call, an allowed call, a new thread and starting a process do, and how
 * many of the process's threads are without the filter.
 */
public final class SeccompProbe {
    private SeccompProbe() {}

    /** keyctl with an operation no kernel has: EOPNOTSUPP when the call is let through, EPERM from the isolation's filter. */
    static String keyctl() {
        java.lang.foreign.MemorySegment err = Native.scratch().errno;
        long r = Native.syscall(Native.nr(250, 219), err, 0x7fffffff, 0, 0);
        return r >= 0 ? "allowed" : Errno.describe(Native.errno(err));
    }

    public static void main(String[] args) throws Exception {
        boolean isolation = args.length > 0 && args[0].equals("isolation");
        if (isolation) Seccomp.installForIsolation();
        else Seccomp.install();
        try {
            Namespaces.unshare(0);
            System.out.println("unshare allowed");
        } catch (SysException e) {
            System.out.println("unshare " + Errno.describe(e.errno()));
        }
        if (isolation) {
            System.out.println("keyctl " + keyctl());
        }
        int fd = Sockets.udp4();
        System.out.println("socket " + (fd >= 0 ? "allowed" : Errno.describe(-fd)));
        Thread t = Thread.ofPlatform().name("started-after-the-filter").start(() -> System.out.println("new thread runs"));
        t.join();
        try {
            new ProcessBuilder("true").start().waitFor();
            System.out.println("exec allowed");
        } catch (java.io.IOException e) {
            System.out.println("exec refused");
        }
        long unfiltered;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            unfiltered = tasks.filter(task -> {
                try {
                    return !Files.readString(task.resolve("status")).contains("Seccomp:\t2");
                } catch (java.io.IOException gone) {
                    return false;
                }
            }).count();
        }
        System.out.println("threads without the filter: " + unfiltered);
    }
}
