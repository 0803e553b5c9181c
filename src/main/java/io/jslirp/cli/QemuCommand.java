package io.jslirp.cli;

import io.jslirp.engine.Engine;
import io.jslirp.engine.EngineConfig;
import io.jslirp.link.DgramLink;
import io.jslirp.link.Link;
import io.jslirp.link.StreamLink;
import io.jslirp.link.VhostUserLink;
import io.jslirp.util.Log;
import io.jslirp.warmup.CompilerThreads;
import io.jslirp.warmup.Warmup;
import io.jslirp.wire.Ipv4;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code jslirp qemu}: serve a QEMU virtual machine through its stream, dgram, socket or vhost-user netdev. */
@Command(name = "qemu", mixinStandardHelpOptions = true, abbreviateSynopsis = true,
        description = {"Serve a QEMU virtual machine through its -netdev stream, dgram, socket or vhost-user.",
                "QEMU's -netdev stream (unix socket), -netdev dgram (unix datagrams), -netdev socket (TCP) "
                        + "or -netdev vhost-user (the guest's queues in memory shared with jslirp) connects here.",
                "One VM at a time; when it restarts and reconnects it is served again."},
        footer = {"", "Examples (disk.img is the VM's disk):",
                "  jslirp qemu --socket /tmp/jslirp.sock &",
                "  qemu-system-x86_64 -m 512 -nographic -hda disk.img \\",
                "      -netdev stream,id=n0,server=off,addr.type=unix,\\",
                "addr.path=/tmp/jslirp.sock -device virtio-net-pci,netdev=n0",
                "",
                "  jslirp qemu --dgram /tmp/jslirp-dgram.sock &",
                "  qemu-system-x86_64 -m 512 -nographic -hda disk.img \\",
                "      -netdev dgram,id=n0,local.type=unix,local.path=/tmp/vm.sock,\\",
                "remote.type=unix,remote.path=/tmp/jslirp-dgram.sock \\",
                "      -device virtio-net-pci,netdev=n0",
                "",
                "  jslirp qemu --vhost-user /tmp/jslirp-vu.sock &   # QEMU 10 or later",
                "  qemu-system-x86_64 -m 256 -nographic -hda disk.img \\",
                "      -object memory-backend-memfd,id=mem,size=256M,share=on \\",
                "      -numa node,memdev=mem -chardev socket,id=c,path=/tmp/jslirp-vu.sock \\",
                "      -netdev vhost-user,id=n0,chardev=c -device virtio-net-pci,netdev=n0",
                "",
                "  jslirp qemu --tcp 5555 &   # QEMU before 7.2",
                "  qemu-system-x86_64 -m 512 -nographic -hda disk.img \\",
                "      -netdev socket,id=n0,connect=127.0.0.1:5555 \\",
                "      -device virtio-net-pci,netdev=n0",
                "",
                "The VM gets its address by DHCP (10.0.2.15 and up); gateway 10.0.2.2, DNS 10.0.2.3."})
final class QemuCommand implements Callable<Integer> {
    @Mixin
    NetworkOptions network;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Transport transport;

    static final class Transport {
        @Option(names = "--socket", paramLabel = "PATH", description = "listen on a unix stream socket for -netdev stream")
        Path socket;

        @Option(names = "--tcp", paramLabel = "[ADDR:]PORT", description = "listen on TCP for -netdev socket,connect= (address 127.0.0.1 unless given)")
        String tcp;

        @Option(names = "--dgram", paramLabel = "PATH", description = "bind a unix datagram socket for -netdev dgram (remote.path=PATH)")
        Path dgram;

        @Option(names = "--vhost-user", paramLabel = "PATH",
                description = "listen on a unix stream socket for -netdev vhost-user (guest memory shared: -object memory-backend-memfd,share=on)")
        Path vhostUser;

        @Option(names = "--fd", paramLabel = "FD", description = "serve a connected stream socket handed over by the parent process; exit when it closes")
        Integer fd;
    }

    @Option(names = {"-r", "--ready-fd"}, paramLabel = "FD", description = "write \"1\" to FD once listening")
    Integer readyFd;

    @Option(names = {"-e", "--exit-fd"}, paramLabel = "FD", description = "exit when FD becomes readable or is closed")
    Integer exitFd;

    @Option(names = "--no-warm-up", description = "do not warm the data path up (a few seconds of one core at start, while the VM boots)")
    boolean noWarmUp;

    @Override
    public Integer call() {
        EngineConfig config = network.engineConfig();
        Link link = open();
        Engine engine = new Engine(link, config);
        network.serve(engine);
        if (exitFd != null) engine.stopWhenReadable(exitFd);
        if (link instanceof DgramLink dgram) { // QEMU sends first: ready before, isolated once its first frame waits
            if (readyFd != null) Serving.signalReady(readyFd);
            isolate(peerDirectory(dgram.awaitPeer(exitFd == null ? -1 : exitFd)));
        } else {
            isolate(List.of());
            if (readyFd != null) Serving.signalReady(readyFd);
        }
        if (!noWarmUp) {
            io.jslirp.stack.Counters counters = engine.counters();
            Warmup.start(config.network().mtu(), config.busyPollNanos(), () -> counters.framesIn + counters.framesOut,
                    transport.vhostUser != null);
        }
        return Serving.untilStopped(engine);
    }

    /**
     * Isolates this process in place ({@link Isolation}), as passt does once set up, where the
     * launcher started it in a mount namespace of its own: the guest's first frame meets an
     * instance without the host's files, and without capabilities where user nobody exists. A
     * --tftp directory is bound in read-only, and so are the paths in also (--dgram's VM socket's
     * directory).
     */
    private void isolate(List<Path> also) {
        CompilerThreads.remember(); // the warm-up's measure, once /proc is gone
        List<Path> readable = new ArrayList<>(network.readAtRunTime());
        readable.addAll(also);
        Isolation.inPlace(readable);
    }

    /**
     * --dgram answers QEMU at its socket's path: the instance already holds a socket connected to
     * the first VM's, and the directory that socket is in stays in sight, read-only, so that a VM
     * restarted at the same path (a new socket there) is reached again, where this user may write
     * to it. None for an abstract or unnamed socket, or one at the top of the filesystem.
     */
    private static List<Path> peerDirectory(String socketPath) {
        if (socketPath == null) return List.of();
        Path dir = Path.of(socketPath).toAbsolutePath().normalize().getParent();
        if (dir == null || dir.getParent() == null) {
            Log.warn("the VM's socket " + socketPath + " is at the top of the filesystem, which isolation does not keep:"
                    + " a VM restarted there is not reached again");
            return List.of();
        }
        Log.debug(() -> "--dgram: keeping " + dir + " in sight, read-only");
        return List.of(dir);
    }

    private Link open() {
        if (transport.socket != null) return StreamLink.listenUnix(transport.socket.toString(), "the --socket path");
        if (transport.vhostUser != null) return VhostUserLink.listenUnix(transport.vhostUser.toString(), "the --vhost-user path");
        if (transport.dgram != null) return DgramLink.bindUnix(transport.dgram.toString(), "the --dgram path");
        if (transport.fd != null) {
            if (transport.fd < 0) throw new IllegalArgumentException("--fd must be a descriptor number, not " + transport.fd);
            return StreamLink.connected(transport.fd);
        }
        String spec = transport.tcp;
        int colon = spec.lastIndexOf(':');
        String host = colon < 0 ? "127.0.0.1" : spec.substring(0, colon);
        String portText = spec.substring(colon + 1);
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 1 || port > 65535) throw new IllegalArgumentException("--tcp port must be 1..65535: " + spec);
        int addr;
        try {
            addr = Ipv4.parse(host);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--tcp address must be an IPv4 address: " + spec);
        }
        return StreamLink.listenTcp(addr, port);
    }
}
