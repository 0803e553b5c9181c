package io.jslirp.engine;

import io.jslirp.capture.Capture;
import io.jslirp.host.TcpForward;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.tcp.TcpConfig;

import java.nio.file.Path;
import java.util.List;

/**
 * Everything an {@link Engine} needs besides its link.
 *
 * @param network        the virtual network
 * @param nameserver     upstream DNS server for the DNS address (IPv4, host order), or 0 for none
 * @param tcp            guest-facing TCP parameters
 * @param udpIdleNanos   how long a UDP flow lives without traffic
 * @param tcpForwards    host TCP ports forwarded to the guest
 * @param tftpRoot       directory served read-only over TFTP on the gateway, or null
 * @param bootFile       boot file name DHCP offers (with the gateway as TFTP server), or null
 * @param capture        frames to record in a pcap file, or null
 */
public record EngineConfig(NetworkConfig network, int nameserver, TcpConfig tcp, long udpIdleNanos, List<TcpForward> tcpForwards,
                           Path tftpRoot, String bootFile, Capture.Settings capture) {
    public static final long DEFAULT_UDP_IDLE_NANOS = 60_000_000_000L;

    public static EngineConfig of(NetworkConfig network, int nameserver) {
        return new EngineConfig(network, nameserver, TcpConfig.forMtu(network.mtu()), DEFAULT_UDP_IDLE_NANOS, List.of(), null, null, null);
    }

    public EngineConfig withTcpForwards(List<TcpForward> forwards) {
        return new EngineConfig(network, nameserver, tcp, udpIdleNanos, List.copyOf(forwards), tftpRoot, bootFile, capture);
    }

    public EngineConfig withTftp(Path root, String file) {
        return new EngineConfig(network, nameserver, tcp, udpIdleNanos, tcpForwards, root, file, capture);
    }

    public EngineConfig withCapture(Capture.Settings settings) {
        return new EngineConfig(network, nameserver, tcp, udpIdleNanos, tcpForwards, tftpRoot, bootFile, settings);
    }
}
