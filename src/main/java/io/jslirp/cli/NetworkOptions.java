package io.jslirp.cli;

import io.jslirp.engine.EngineConfig;
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

    @Option(names = "--resolv-conf", paramLabel = "FILE", description = "resolv.conf whose nameservers (in turn, when one fails) answer DNS sent to the DNS address (default: ${DEFAULT-VALUE})", defaultValue = "/etc/resolv.conf")
    Path resolvConf;

    @Option(names = "--disable-dns", description = "no DNS service on the DNS address (.3): UDP and TCP to it go unanswered, as to an unassigned address")
    boolean disableDns;

    @Option(names = {"-t", "--tcp-forward"}, paramLabel = "[ADDR/]PORT[:GUESTPORT]",
            description = "forward host TCP port PORT (on 127.0.0.1 unless ADDR is given) to the guest's GUESTPORT (default: PORT); repeatable")
    List<String> tcpForwards = new ArrayList<>();

    @Option(names = "--debug", description = "log each flow's life, one line per event")
    boolean debug;

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
        if (!disableDns && !Files.isReadable(resolvConf) && !resolvConf.equals(ResolvConf.DEFAULT)) {
            throw new IllegalArgumentException("cannot read --resolv-conf " + resolvConf);
        }
        List<TcpForward> forwards = new ArrayList<>();
        for (String spec : tcpForwards) forwards.add(TcpForward.parse(spec));
        return EngineConfig.of(network, disableDns ? null : ResolvConf.nameservers(resolvConf)).withTcpForwards(forwards);
    }
}
