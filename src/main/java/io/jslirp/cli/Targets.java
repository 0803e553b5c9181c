package io.jslirp.cli;

import io.jslirp.util.FileErrors;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The network namespace a command is to serve, named by a PID or a path, checked so that the error
 * says which of the two it is: absent ("no process with PID 42") or there but not ours to open
 * (another user's process: the kernel hides its namespaces from us).
 */
final class Targets {
    private Targets() {}

    /** /proc/PID/ns/net of a process that exists and whose namespaces this process may open. */
    static String netnsOfPid(String pid) {
        Path proc = Path.of("/proc", pid);
        String ns = proc + "/ns/net";
        if (!Files.exists(proc, LinkOption.NOFOLLOW_LINKS)) throw new IllegalArgumentException("no process with PID " + pid);
        try {
            Files.readSymbolicLink(Path.of(ns));
            return ns;
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException("cannot open the network namespace of PID " + pid + ": Permission denied (the process"
                    + " belongs to " + owner(proc) + "; serve a process of your own user, or run jslirp as its user or as root)");
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("no process with PID " + pid); // it ended meanwhile
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot open " + ns + ": " + FileErrors.reason(e));
        }
    }

    /** A network namespace file (ip netns's /run/netns/NAME, a /proc/PID/ns/net) that exists and that we may open. */
    static String netnsAt(String path) {
        Path p = Path.of(path);
        try (var ignored = java.nio.channels.FileChannel.open(p)) {
            return path;
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("no network namespace at " + path + ": No such file or directory");
        } catch (AccessDeniedException e) {
            throw new IllegalArgumentException("cannot open the network namespace at " + path + ": Permission denied");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot open the network namespace at " + path + ": " + FileErrors.reason(e));
        }
    }

    private static String owner(Path proc) {
        try {
            return "user " + Files.getOwner(proc).getName();
        } catch (IOException | UnsupportedOperationException e) {
            return "another user";
        }
    }
}
