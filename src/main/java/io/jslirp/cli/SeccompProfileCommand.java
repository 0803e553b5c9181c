package io.jslirp.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jslirp.bypass.SeccompProfile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code jslirp seccomp-profile}: Podman's default seccomp profile with the socket bypass's notify rule, for --security-opt seccomp=FILE. */
@Command(name = "seccomp-profile", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = {"Print a seccomp profile for the socket bypass of Podman's containers.",
                "It is Podman's default profile (or --base) with every connect() sent to jslirp's seccomp agent at --listener:"
                        + " give the profile to podman run --security-opt seccomp=FILE, and the same path to jslirp as pasta with"
                        + " --network pasta:--jslirp-seccomp-agent,PATH. The container's connects to host addresses then become host"
                        + " sockets, at the host's own speed."},
        footer = {"", "Example:", "  sock=$XDG_RUNTIME_DIR/jslirp-agent.sock",
                "  jslirp seccomp-profile --listener $sock > profile.json",
                "  podman run --security-opt seccomp=profile.json \\",
                "    --network pasta:--jslirp-seccomp-agent,$sock IMAGE"})
final class SeccompProfileCommand implements Callable<Integer> {
    /** containers-common's default profile, which Podman applies when none is given. */
    static final Path PODMAN_DEFAULT = Path.of("/usr/share/containers/seccomp.json");

    @Option(names = "--listener", required = true, paramLabel = "PATH",
            description = "the agent's socket: the path jslirp as pasta takes with --jslirp-seccomp-agent (absolute)")
    Path listener;

    @Option(names = "--base", paramLabel = "FILE", description = "the profile to start from (default: " + "/usr/share/containers/seccomp.json)")
    Path base;

    @Override
    public Integer call() throws IOException {
        if (!listener.isAbsolute()) throw new IllegalArgumentException("--listener must be an absolute path, not " + listener);
        Path from = base == null ? PODMAN_DEFAULT : base;
        JsonNode profile;
        try {
            profile = new ObjectMapper().readTree(Files.readAllBytes(from));
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("no profile at " + from + (base == null ? " (containers-common's, Podman's default): name one with --base FILE" : ""));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(from + " is not JSON: " + e.getOriginalMessage());
        }
        try {
            System.out.println(new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(SeccompProfile.withNotify(profile, listener.toString())));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(from + " is " + e.getMessage());
        }
        return 0;
    }
}
