package io.jslirp.cli;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Whether a command can be run, checked as a shell looks it up, before jslirp makes a namespace for
 * it: a name with a slash is that file; any other is the first executable file of that name in a
 * PATH directory. A command that is not there fails with status 127 ("command not found", or the
 * file's "No such file or directory"), one that is there but cannot be executed (no execute
 * permission, a directory) with 126, as shells and {@code unshare} exit.
 */
final class Executable {
    static final int NOT_FOUND = 127;
    static final int NOT_EXECUTABLE = 126;

    private Executable() {}

    /** Throws {@link ExitStatus} unless name would run with this PATH (null or empty: the shell's default). */
    static void check(String name, String pathVariable) {
        if (name.isEmpty()) throw new ExitStatus("cannot run '': command not found", NOT_FOUND);
        if (name.contains("/")) {
            Path file = path(name);
            if (file == null || !Files.exists(file)) {
                throw new ExitStatus("cannot run " + name + ": No such file or directory", NOT_FOUND);
            }
            refuseUnexecutable(name, file);
            return;
        }
        if (find(name, pathVariable) != null) return;
        for (String dir : directories(pathVariable)) {
            Path file = path(dir + "/" + name);
            if (file != null && Files.exists(file)) refuseUnexecutable(name, file); // there, but not one to run
        }
        throw new ExitStatus("cannot run " + name + ": command not found", NOT_FOUND);
    }

    /** The first executable regular file called name (no slash) in PATH's directories, or null. */
    static Path find(String name, String pathVariable) {
        for (String dir : directories(pathVariable)) {
            Path file = path(dir + "/" + name);
            if (file != null && Files.isRegularFile(file) && Files.isExecutable(file)) return file;
        }
        return null;
    }

    private static List<String> directories(String pathVariable) {
        String dirs = pathVariable == null || pathVariable.isEmpty() ? "/usr/local/bin:/usr/bin:/bin" : pathVariable;
        return Arrays.stream(dirs.split(":", -1)).map(d -> d.isEmpty() ? "." : d).toList();
    }

    private static void refuseUnexecutable(String name, Path file) {
        if (Files.isDirectory(file)) throw new ExitStatus("cannot run " + name + ": Is a directory", NOT_EXECUTABLE);
        if (!Files.isExecutable(file)) throw new ExitStatus("cannot run " + name + ": Permission denied", NOT_EXECUTABLE);
    }

    private static Path path(String s) {
        try {
            return Path.of(s);
        } catch (InvalidPathException e) {
            return null;
        }
    }
}
