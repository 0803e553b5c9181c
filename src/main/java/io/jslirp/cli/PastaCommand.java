package io.jslirp.cli;

import io.jslirp.capture.Capture;
import io.jslirp.api.EngineApi;
import io.jslirp.bypass.ConnectBypass;
import io.jslirp.bypass.SeccompAgent;
import io.jslirp.engine.Engine;
import io.jslirp.engine.EngineConfig;
import io.jslirp.link.TapLink;
import io.jslirp.pasta.HostNetwork;
import io.jslirp.pasta.PastaError;
import io.jslirp.pasta.PastaOptions;
import io.jslirp.pasta.PortSpec;
import io.jslirp.sys.Epoll;
import io.jslirp.sys.Inotify;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Namespaces;
import io.jslirp.sys.Netlink;
import io.jslirp.sys.PidFd;
import io.jslirp.sys.SysException;
import io.jslirp.util.Log;
import io.jslirp.wire.Ipv4;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * {@code jslirp pasta ARGV0 ARGS...} ({@code bin/pasta}): pasta's command line and lifecycle. Read
 * with pasta's own getopt rules before picocli sees anything, so an option pasta does not know gets
 * pasta's "unrecognized option" line and exit 1. Then: the namespace (--netns PATH|NAME, or a PID's)
 * gets its tap, --config-net's addresses, routes and MTU, and the port pieces ({@link PastaPorts});
 * the PID file is written; the process isolates itself as pasta does (an empty
 * root, nobody without capabilities, a seccomp filter) where the launcher started it in a mount
 * namespace of its own; and only then the caller learns the outcome: with a status descriptor
 * from the launcher (not -f), "ready" on it, after which this process leaves the caller's session
 * and stdio (so the caller's pipes reach end of file) and serves in the background. It exits 0 when
 * the --netns file is deleted or moved away (inotify on its directory), when the target PID is gone
 * (pidfd), or on SIGTERM, all from the event loop. A setup error is one line on stderr and exit 1.
 */
final class PastaCommand {
    /** The environment variable naming the descriptor the launcher reads "ready" from (unset: foreground). */
    static final String STATUS_FD = "JSLIRP_PASTA_STATUS_FD";
    /**
     * The environment variable naming a path for slirp4netns's API socket (jslirp status, forward):
     * pasta's command line has no place for it, and a new long option would make abbreviations
     * pasta's callers may use ambiguous.
     */
    static final String API_SOCKET = "JSLIRP_API_SOCKET";

    private PastaCommand() {}

    /** args: argv[0] as the caller named the program, then pasta's arguments. Returns the exit status. */
    static int run(List<String> args) {
        String program = args.isEmpty() ? "pasta" : args.get(0);
        PastaOptions.Outcome outcome = PastaOptions.parse(program, args.subList(Math.min(1, args.size()), args.size()),
                ephemeral(), version());
        if (outcome instanceof PastaOptions.Exit exit) {
            System.out.print(exit.stdout());
            System.out.flush();
            System.err.print(exit.stderr());
            System.err.flush();
            return exit.status();
        }
        PastaOptions o = ((PastaOptions.Serve) outcome).options();
        for (String w : o.warnings()) System.err.println(w);
        Log.enableDebug(o.debug() || o.trace());
        if (!o.ignored().isEmpty()) Log.debug(() -> "accepted, without effect in jslirp: " + String.join(" ", o.ignored()));
        try {
            return serve(o);
        } catch (Exception e) {
            System.err.println(Main.oneLine(e));
            return 1;
        }
    }

    private static PortSpec.Ephemeral ephemeral() {
        try {
            return PortSpec.Ephemeral.read();
        } catch (RuntimeException e) {
            return PortSpec.Ephemeral.DEFAULT;
        }
    }

    private static String version() {
        return BuildInfo.CURRENT.describe();
    }

    private static int serve(PastaOptions o) throws Exception {
        String netns = o.netns();
        if (netns == null) return serveCommand(o);
        checkUserNamespace(o.userNamespace());
        if (!Files.exists(Path.of(netns))) throw new IllegalArgumentException("Couldn't open network namespace " + netns + ": No such file or directory");
        if (Files.isSameFile(Path.of(netns), Path.of("/proc/self/ns/net"))) {
            throw new IllegalArgumentException("Couldn't open network namespace " + netns + ": it is jslirp's own network namespace");
        }
        PidFd target = o.targetPid() > 0 ? PidFd.open(o.targetPid()) : null;
        HostNetwork host = HostNetwork.read(o.interfaceName(), o.interfaceName());
        PastaNetwork network = PastaNetwork.of(o, host);
        long mac = PastaNetwork.mac(o);
        EngineConfig config = engineConfig(o, network, mac);

        TapLink link = Namespaces.callInNetns(netns, () -> GuestInterface.open(network.ifname(), false));
        Engine engine = new Engine(link, config);
        if (o.configNet()) {
            Namespaces.callInNetns(netns, () -> {
                configure(o, network);
                return null;
            });
        }
        PastaPorts.Context context = new PastaPorts.Context(o, engine, netns, network);
        for (PastaPorts piece : PastaPorts.pieces()) piece.open(context);
        serveApi(engine);
        if (o.seccompAgent() != null) seccompAgent(engine, netns, o.seccompAgent());
        watchTarget(o, engine, netns, target);
        Serving.stopOnSignals(engine); // the PID file's reader may signal at once
        if (o.pidFile() != null) writePidFile(Path.of(o.pidFile()));
        Detach detach = Detach.open(o.logFile());
        // as pasta after its set-up: what it serves from here on is open already
        Isolation.inPlace(List.of(), List.of(), o.seccompAgent() != null);
        if (detach != null) detach.run();
        return Serving.untilStopped(engine, o.debug()); // pasta prints no counters; -d shows ours
    }

    /**
     * --jslirp-seccomp-agent PATH (jslirp's own): the OCI runtime hands this instance the seccomp filters
     * of the container's processes (a profile of {@code jslirp seccomp-profile --listener PATH}),
     * and their connects to host addresses become host sockets in their place (the socket bypass,
     * decided as the guest's SYNs are). Listening before the caller is told "ready": the runtime
     * connects as it starts the container.
     */
    private static void seccompAgent(Engine engine, String netns, String path) throws Exception {
        ConnectBypass.Defaults defaults = Namespaces.callInNetns(netns, Bypass::defaults);
        SeccompAgent agent = SeccompAgent.listen(engine.loop(), engine.transport().bypass(defaults)::serve, path, "the --jslirp-seccomp-agent path");
        engine.atShutdown(agent::close);
    }

    /**
     * No --netns nor PID: runs the command (or $SHELL, else /bin/sh) in a new network namespace,
     * which the launcher's new user (and mount) namespace owns, set up as for a namespace given;
     * serves it in the foreground while the command runs and exits with its status (128 + the
     * signal's number when a signal ended it), as pasta's command mode does. The command starts
     * once everything is set up (pasta holds it back until then too).
     */
    private static int serveCommand(PastaOptions o) throws Exception {
        if (o.seccompAgent() != null) throw new PastaError("--jslirp-seccomp-agent needs --netns or a PID (the namespace a container runtime starts into)");
        HostNetwork host = HostNetwork.read(o.interfaceName(), o.interfaceName());
        PastaNetwork network = PastaNetwork.of(o, host);
        EngineConfig config = engineConfig(o, network, PastaNetwork.mac(o));
        List<String> argv = o.command().isEmpty() ? List.of(shell()) : o.command();
        GuestCommand command = GuestCommand.start(argv, () -> {
            // held for the life of the process: a path to the namespace for the port pieces
            int nsFd = Libc.open("/proc/thread-self/ns/net", Libc.O_RDONLY | Libc.O_CLOEXEC);
            TapLink link = GuestInterface.open(network.ifname(), true);
            if (o.configNet()) configure(o, network);
            return new CommandNetns(link, "/proc/self/fd/" + nsFd);
        }, e -> new IllegalArgumentException("Failed to start command or shell: " + Main.oneLine(e)));
        CommandNetns setup = command.ready();
        Engine engine;
        try {
            engine = new Engine(setup.link(), config);
            PastaPorts.Context context = new PastaPorts.Context(o, engine, setup.netnsPath(), network);
            for (PastaPorts piece : PastaPorts.pieces()) piece.open(context);
            serveApi(engine);
            if (o.pidFile() != null) writePidFile(Path.of(o.pidFile()));
        } catch (Exception e) {
            command.abandon();
            throw e;
        }
        Process p = command.go();
        p.onExit().thenRun(engine::stop);
        Isolation.inPlace(List.of(), List.of(command)); // the command stays in its own mount namespace; its thread follows
        Serving.untilStopped(engine, o.debug()); // pasta prints no counters; -d shows ours
        return p.waitFor();
    }

    /** Serves slirp4netns's API for engine where {@link #API_SOCKET} says, if it is set (before the caller is told "ready"). */
    private static void serveApi(Engine engine) {
        String path = System.getenv(API_SOCKET);
        if (path != null && !path.isEmpty()) EngineApi.serve(engine, Path.of(path));
    }

    /** The command's namespace as its setup thread made it: the tap, and a path to the namespace that stays valid. */
    private record CommandNetns(TapLink link, String netnsPath) {}

    private static String shell() {
        String s = System.getenv("SHELL");
        return s != null && !s.isBlank() ? s : "/bin/sh";
    }

    /** The launcher enters the user namespace to join before the JVM starts (a running JVM cannot): check that it did. */
    private static void checkUserNamespace(String userns) throws IOException {
        if (userns == null) return;
        if (!Files.exists(Path.of(userns))) throw new IllegalArgumentException("Couldn't open user namespace " + userns + ": No such file or directory");
        if (!Files.isSameFile(Path.of(userns), Path.of("/proc/self/ns/user"))) {
            throw new IllegalArgumentException("Couldn't join user namespace " + userns
                    + ": jslirp enters it before the JVM starts; run jslirp's bin/pasta, not the jar");
        }
    }

    private static EngineConfig engineConfig(PastaOptions o, PastaNetwork network, long mac) {
        EngineConfig.Builder b = network.engineConfig(mac);
        if (o.outbound().ipv4() != null) b.outboundAddress(Ipv4.parse(o.outbound().ipv4().getHostAddress()));
        if (o.outbound().ipv6() != null) b.outboundAddress6(PastaNetwork.host(o.outbound().ipv6()));
        if (o.pcap() != null) b.capture(new Capture.Settings(Path.of(o.pcap()), Capture.DEFAULT_MAX_BYTES, null));
        return b.build();
    }

    /**
     * --config-net, in the namespace (the calling thread's): lo up; the tap's MTU, MAC (--ns-mac-addr)
     * and up; each version's addresses (IPv6 without duplicate address detection) and routes. A
     * copied route the kernel has already (the prefix routes of the addresses) or cannot take is
     * passed over, as pasta does; the default route of -g must go in.
     */
    static void configure(PastaOptions o, PastaNetwork network) {
        try (Netlink nl = Netlink.open()) {
            nl.setUp(nl.link("lo"));
            Netlink.Link tap = nl.link(network.ifname());
            if (network.mtu() > 0) nl.setMtu(tap, network.mtu());
            if (o.nsMacAddr() != null) io.jslirp.sys.InterfaceConfig.setMac(network.ifname(), o.nsMacAddr());
            nl.setUp(tap);
            for (PastaNetwork.Side side : new PastaNetwork.Side[] {network.ipv4(), network.ipv6()}) {
                if (side == null) continue;
                for (HostNetwork.Prefixed a : side.addresses()) {
                    try {
                        nl.addAddress(tap, a.address(), a.prefixLength());
                    } catch (SysException e) {
                        if (e.errno() != io.jslirp.sys.Errno.EEXIST) throw e;
                    }
                }
                boolean copied = side.routes().size() != 1 || side.routes().get(0).prefixLength() != 0 || side.gateway() == null;
                for (Netlink.Route r : side.routes()) {
                    try {
                        nl.addRoute(tap, r);
                    } catch (SysException e) {
                        if (e.errno() == io.jslirp.sys.Errno.EEXIST) continue;
                        if (!copied) throw e;
                        Log.debug(() -> "route " + r + " not copied: " + e.getMessage());
                    }
                }
            }
        }
    }

    /** Stops the engine when the --netns file goes (unless --no-netns-quit) or the target process ends. */
    private static void watchTarget(PastaOptions o, Engine engine, String netns, PidFd target) {
        if (target != null) {
            engine.loop().register(target.fd(), Epoll.IN, events -> {
                Log.debug(() -> "target process " + target.pid() + " is gone");
                engine.stop();
            });
            engine.atShutdown(target::close);
        }
        if (o.targetPid() > 0 || o.noNetnsQuit()) return;
        Path file = Path.of(netns).toAbsolutePath();
        Path dir = file.getParent();
        String name = file.getFileName().toString();
        Inotify inotify = new Inotify();
        inotify.watch(dir.toString(), Inotify.IN_DELETE | Inotify.IN_MOVED_FROM | Inotify.IN_DELETE_SELF | Inotify.IN_MOVE_SELF);
        engine.loop().register(inotify.fd(), Epoll.IN, events -> {
            for (Inotify.Event e : inotify.read()) {
                boolean ours = e.name().equals(name) && e.any(Inotify.IN_DELETE | Inotify.IN_MOVED_FROM);
                boolean dirGone = e.name().isEmpty() && e.any(Inotify.IN_DELETE_SELF | Inotify.IN_MOVE_SELF);
                if (ours || dirGone) {
                    Log.debug(() -> "namespace file " + file + " is gone");
                    engine.stop();
                }
            }
        });
        engine.atShutdown(inotify::close);
    }

    /** "%d\n", mode 0600, replacing the file at once (written next to it, then renamed). */
    static void writePidFile(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = Files.createTempFile(dir, "." + file.getFileName(), ".tmp", PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(tmp, ProcessHandle.current().pid() + "\n", StandardCharsets.US_ASCII);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw new IOException("Couldn't open PID file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * With the launcher's status descriptor: writes "ready" on it and closes it, then leaves the
     * caller's session and points stdio at /dev/null, so the caller's pipes reach end of file and
     * its terminal's signals do not reach us; with -l, stderr (warnings, --debug's lines) goes on
     * into that file instead. What it writes to is opened first ({@link #open}), before isolation
     * takes the files away.
     */
    private record Detach(int status, int log, int devNull) {
        /** The descriptors the detach needs; null without a status descriptor (-f, or the jar run directly): nothing to do. */
        static Detach open(String logFile) throws IOException {
            String fdText = System.getenv(STATUS_FD);
            if (fdText == null || !fdText.matches("[0-9]{1,4}")) return null;
            int log = -1;
            if (logFile != null) {
                Path f = Path.of(logFile);
                if (!Files.exists(f)) Files.createFile(f, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                log = Libc.open(logFile, Libc.O_WRONLY | Libc.O_APPEND | Libc.O_CLOEXEC);
            }
            return new Detach(Integer.parseInt(fdText), log, Libc.open("/dev/null", Libc.O_RDWR | Libc.O_CLOEXEC));
        }

        void run() {
            System.out.flush();
            System.err.flush();
            try (Arena a = Arena.ofConfined()) {
                MemorySegment ready = a.allocateFrom("ready\n");
                Libc.write(status, ready, 0, (int) ready.byteSize() - 1);
            }
            Libc.close(status);
            try {
                Libc.setsid();
            } catch (SysException e) {
                Log.debug(e::getMessage); // a process group leader already (started so by its caller)
            }
            for (int std = 0; std <= 2; std++) Libc.dup2(std == 2 && log >= 0 ? log : devNull, std);
            if (devNull > 2) Libc.close(devNull);
            if (log > 2) Libc.close(log);
        }
    }
}
