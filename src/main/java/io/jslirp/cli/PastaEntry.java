package io.jslirp.cli;

import picocli.CommandLine.Command;

import java.util.concurrent.Callable;

/**
 * {@code pasta} in jslirp's list of commands. The command itself is not picocli's: {@link Main}
 * hands {@code jslirp pasta ARGV0 ARGS...} (what bin/pasta runs) to {@link PastaCommand}, which
 * reads pasta's command line with getopt's rules before picocli sees it; this entry names it in
 * {@code jslirp --help} and in the manual.
 */
@Command(name = "pasta",
        description = {"Serve a namespace with pasta's command line: what bin/pasta runs, for Podman 5 and 6 and RootlessKit.",
                "Run it as bin/pasta (or a symlink named pasta); 'bin/pasta --help' lists pasta's options."},
        footer = {"", "Examples:",
                "  # Podman: jslirp's bin/ as its helper directory",
                "  CONTAINERS_HELPER_BINARY_DIR=$PWD/bin podman run --rm -p 8080:80 IMAGE",
                "  # a namespace of ip netns; host port 8081 to its port 80:",
                "  ip netns add demo && bin/pasta --config-net -t 8081:80 --netns demo"})
final class PastaEntry implements Callable<Integer> {
    @Override
    public Integer call() {
        throw new IllegalArgumentException("run pasta's command line as bin/pasta (jslirp pasta ARGV0 [OPTION]...)");
    }
}
