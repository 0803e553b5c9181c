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

    public static void main(String[] args) throws Exception {
        Seccomp.install();
        try {
            Namespaces.unshare(0);
            System.out.println("unshare allowed");
        } catch (SysException e) {
            System.out.println("unshare " + Errno.describe(e.errno()));
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
