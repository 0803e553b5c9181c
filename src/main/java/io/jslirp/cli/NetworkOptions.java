package io.jslirp.cli;

import io.jslirp.engine.EngineConfig;
import io.jslirp.host.Limits;
import io.jslirp.host.ResolvConf;
import io.jslirp.host.TcpForward;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.util.Log;
import io.jslirp.wire.Mac;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Options shared by every command that builds a virtual network, with slirp4netns's names and defaults. */
final class NetworkOptions {
    @Option(names = {"-m", "--mtu"}, paramLabel = "MTU", description = "MTU of the interface (default: ${DEFAULT-VALUE}, max 65520)", defaultValue = "1500")
    int mtu;

    @Option(names = "--cidr", paramLabel = "CIDR", description = "virtual network (default: ${DEFAULT-VALUE}); gateway .2, DNS .3, DHCP from .15, guest .100", defaultValue = "10.0.2.0/24")
    String cidr;

    @Option(names = "--disable-host-loopback", description = "do not map the gateway address to the host's 127.0.0.1")
    boolean disableHostLoopback;

    @Option(names = "--macaddress", paramLabel = "MAC", description = "MAC address of the guest interface (with --configure)")
    String macAddress;

    @Option(names = "--resolv-conf", paramLabel = "FILE", description = "resolv.conf whose first nameserver answers DNS sent to the DNS address (default: ${DEFAULT-VALUE})", defaultValue = "/etc/resolv.conf")
    Path resolvConf;

    @Option(names = {"-t", "--tcp-forward"}, paramLabel = "[ADDR/]PORT[:GUESTPORT]",
            description = "forward host TCP port PORT (on 127.0.0.1 unless ADDR is given) to the guest's GUESTPORT (default: PORT); repeatable")
    List<String> tcpForwards = new ArrayList<>();

    @Option(names = "--debug", description = "log each flow's life, one line per event")
    boolean debug;

    @Option(names = "--max-connections", paramLabel = "N", defaultValue = "65536",
            description = "TCP connections at once; beyond it a guest's SYN is answered with a reset (default: ${DEFAULT-VALUE})")
    int maxConnections;

    @Option(names = "--max-half-open", paramLabel = "N", defaultValue = "4096",
            description = "TCP connections whose host connect is still in progress (default: ${DEFAULT-VALUE})")
    int maxHalfOpen;

    @Option(names = "--max-udp-flows", paramLabel = "N", defaultValue = "16384",
            description = "UDP flows at once, one host socket each; beyond it the guest gets ICMP administratively prohibited (default: ${DEFAULT-VALUE})")
    int maxUdpFlows;

    @Option(names = "--tcp-buffer", paramLabel = "SIZE", defaultValue = "1M",
            description = "most a TCP connection buffers per direction, a power of two (K, M suffixes; default: ${DEFAULT-VALUE})")
    String tcpBuffer;

    @Option(names = "--buffer-budget", paramLabel = "SIZE", defaultValue = "128M",
            description = "most all TCP buffers together grow beyond their first 4 KiB each (K, M, G suffixes; default: ${DEFAULT-VALUE})")
    String bufferBudget;

    NetworkConfig network() {
        return NetworkConfig.fromCidr(cidr, mtu, !disableHostLoopback);
    }

    /** The guest MAC to set, or -1 to leave the kernel's. */
    long guestMac() {
        return macAddress == null ? -1 : Mac.parse(macAddress);
    }

    /** Validates everything and builds the engine configuration; IllegalArgumentException says what is wrong. */
    EngineConfig engineConfig() {
        Log.enableDebug(debug);
        NetworkConfig network = network();
        guestMac();
        if (!Files.isReadable(resolvConf) && !resolvConf.equals(ResolvConf.DEFAULT)) {
            throw new IllegalArgumentException("cannot read --resolv-conf " + resolvConf);
        }
        List<TcpForward> forwards = new ArrayList<>();
        for (String spec : tcpForwards) forwards.add(TcpForward.parse(spec));
        EngineConfig config = EngineConfig.of(network, ResolvConf.firstNameserver(resolvConf)).withTcpForwards(forwards);
        long perConnection = Sizes.parse("--tcp-buffer", tcpBuffer);
        long budget = Sizes.parse("--buffer-budget", bufferBudget);
        try {
            config = config.withTcp(config.tcp().withBuffers((int) Math.min(perConnection, Integer.MAX_VALUE), budget));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--tcp-buffer " + tcpBuffer + ": " + e.getMessage());
        }
        if (maxConnections < 1 || maxHalfOpen < 1 || maxUdpFlows < 1) {
            throw new IllegalArgumentException("--max-connections, --max-half-open and --max-udp-flows must be at least 1");
        }
        return config.withLimits(new Limits(maxConnections, maxHalfOpen, maxUdpFlows));
    }
}
