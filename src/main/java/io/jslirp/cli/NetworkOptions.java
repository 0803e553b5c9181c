package io.jslirp.cli;

import io.jslirp.capture.Capture;
import io.jslirp.capture.CaptureFilter;
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
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    @Option(names = "--tftp", paramLabel = "DIR", description = "serve DIR read-only over TFTP on the gateway's port 69 (QEMU's tftp=DIR)")
    Path tftp;

    @Option(names = "--bootfile", paramLabel = "NAME", description = "boot file DHCP offers, with the gateway as TFTP server (QEMU's bootfile=NAME)")
    String bootFile;

    @Option(names = "--pcap", paramLabel = "FILE", description = "write every frame, both ways, to FILE in pcap format")
    Path pcap;

    @Option(names = "--pcap-size", paramLabel = "BYTES", description = "stop capturing when FILE would pass BYTES (suffix k, M or G; default: 1G)")
    String pcapSize;

    @Option(names = "--pcap-filter", paramLabel = "EXPR",
            description = "capture only frames matching EXPR: terms tcp, udp, icmp, arp, port N, host A.B.C.D joined by 'and'")
    String pcapFilter;

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
        if (!Files.isReadable(resolvConf) && !resolvConf.equals(ResolvConf.DEFAULT)) {
            throw new IllegalArgumentException("cannot read --resolv-conf " + resolvConf);
        }
        List<TcpForward> forwards = new ArrayList<>();
        for (String spec : tcpForwards) forwards.add(TcpForward.parse(spec));
        if (tftp != null && !Files.isDirectory(tftp)) throw new IllegalArgumentException("--tftp " + tftp + " is not a directory");
        if (bootFile != null && !bootFile.matches("[\\x21-\\x7e]{1,127}")) {
            throw new IllegalArgumentException("--bootfile must be 1-127 printable ASCII characters without spaces: " + bootFile);
        }
        return EngineConfig.of(network, ResolvConf.firstNameserver(resolvConf)).withTcpForwards(forwards).withTftp(tftp, bootFile)
                .withCapture(capture());
    }

    private Capture.Settings capture() {
        if (pcap == null) {
            if (pcapSize != null || pcapFilter != null) throw new IllegalArgumentException("--pcap-size and --pcap-filter need --pcap FILE");
            return null;
        }
        long maxBytes = pcapSize == null ? Capture.DEFAULT_MAX_BYTES : bytes(pcapSize);
        return new Capture.Settings(pcap, maxBytes, pcapFilter == null ? null : CaptureFilter.parse(pcapFilter));
    }

    /** A byte count with an optional k, M or G suffix (powers of 1024). */
    static long bytes(String text) {
        Matcher m = Pattern.compile("(\\d{1,15})([kKmMgG]?)").matcher(text);
        if (!m.matches()) throw new IllegalArgumentException("--pcap-size must be a number of bytes with an optional k, M or G suffix: " + text);
        int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 0;
        };
        long value = Long.parseLong(m.group(1)) << shift;
        if (value < 1024) throw new IllegalArgumentException("--pcap-size must be at least 1k: " + text);
        return value;
    }
}
