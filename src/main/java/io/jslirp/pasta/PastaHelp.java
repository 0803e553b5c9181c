package io.jslirp.pasta;

/**
 * --help and --version for jslirp standing in for pasta: pasta's layout (tabs, a "default:" line
 * under an option), saying what jslirp does with each option, then the options it only accepts.
 */
final class PastaHelp {
    private PastaHelp() {}

    /** --version: pasta's first line ("pasta VERSION", what `podman info` shows), then one naming jslirp. */
    static String version(String version) {
        return "pasta jslirp-" + version + "\n"
                + "jslirp " + version + ": user-mode networking in Java behind pasta's command line (this is not passt's pasta)\n";
    }

    /** Usage for program (argv[0]): on stdout for --help, on stderr after a command line getopt refused. */
    static String usage(String program) {
        return """
                Usage: %1$s [OPTION]... [COMMAND] [ARGS]...
                       %1$s [OPTION]... PID
                       %1$s [OPTION]... --netns [PATH|NAME]

                jslirp, in pasta's place: serves a network namespace through a tap
                device, copying the host's addresses and routes into it (--config-net),
                and carries its traffic out as the host's own sockets. Without PID or
                --netns, runs COMMAND (or a shell) in a new user and network namespace.

                  -d, --debug		Be verbose
                      --trace		The same as --debug
                  -q, --quiet		Only warnings and errors
                  -f, --foreground	Stay in the foreground once set up
                    default: go to the background, the PID file naming the server
                  -l, --log-file PATH	Write the log to PATH
                  -h, --help		Show this help and exit
                  --version		Show the version and exit
                  -I, --ns-ifname NAME	Name of the tap device in the namespace
                    default: the host's template interface's name, or tap0
                  -p, --pcap FILE	Write the tap's frames to FILE (pcap)
                  -P, --pid FILE	Write the serving process's PID to FILE
                  -c, --conf-path PATH	Control socket for pesto: forwarding rules listed
                    and changed at run time
                  -m, --mtu MTU		MTU of the tap device; 0 leaves it alone
                    default: 65520
                  -a, --address ADDR	IPv4 or IPv6 address for the namespace, once each
                    default: the template interface's addresses
                  -n, --netmask MASK	Prefix length or dotted netmask of -a's IPv4 address
                    default: by the address's class
                  -g, --gateway ADDR	IPv4 or IPv6 default gateway, once each
                    default: the template interface's routes
                  -M, --mac-addr ADDR	MAC address jslirp answers with on the tap
                  --ns-mac-addr ADDR	MAC address of the tap device
                  -i, --interface NAME	Template interface for addresses and routes
                    default: the one with the default route (IPv4, IPv6 apart)
                  -o, --outbound ADDR	Source address of outbound sockets, once each
                  -4, --ipv4-only	IPv4 only
                  -6, --ipv6-only	IPv6 only
                  --dns-forward ADDR	Send DNS (TCP and UDP) to ADDR on to --dns-host
                  --dns-host ADDR	Nameserver forwarded DNS goes to
                    default: the first nameserver of the host's /etc/resolv.conf
                  --map-guest-addr ADDR	Traffic to ADDR goes to the host
                  --map-host-loopback ADDR	Traffic to ADDR goes to the host's loopback
                    default: the gateway's address
                  --no-map-gw		The gateway's address is not the host's loopback
                  --host-lo-to-ns-lo	host-loopback clients of -t, -u to the namespace's loopback
                    (else to its own address, as pasta)
                  --no-splice		host-loopback clients of -t, -u through the tap too
                  -t, --tcp-ports SPEC	Host TCP ports forwarded to the namespace
                    repeatable; SPEC is 'none', 'auto' (what listens in the namespace,
                    followed as it changes), 'all', or a comma-separated list of
                    [ADDR[%%IF]/]FIRST[-LAST][:TO[-TOLAST]] and ~FIRST[-LAST] exclusions:
                      -t 22	-t 8080:80	-t 22,25	-t 8000-8010:9000-9010
                      -t 127.0.0.1/8080	-t ::1/8080	-t 5-25,~10-20	-t ~25
                    default: auto
                  -u, --udp-ports SPEC	Host UDP ports forwarded to the namespace
                    default: auto, with the TCP ports of -t auto too
                  -T, --tcp-ns SPEC	Namespace loopback TCP ports forwarded to the host
                    default: auto
                  -U, --udp-ns SPEC	Namespace loopback UDP ports forwarded to the host
                    default: auto
                  --userns NSPATH	User namespace to join first
                  --netns PATH|NAME	Network namespace to serve (NAME: /run/netns/NAME)
                  --netns-only		Join no user namespace
                  --no-netns-quit	Keep serving when the --netns file is deleted
                  --config-net		Configure the tap device in the namespace
                  --no-copy-routes	Only a default route via -g or the host's gateway
                  --no-copy-addrs	Only one address, -a's or the host's
                  --jslirp-seccomp-agent PATH	jslirp's own: the OCI runtime's seccomp agent
                    at PATH (see jslirp seccomp-profile): the container's connects to
                    host addresses become host sockets (the socket bypass)

                Accepted as pasta accepts them, without effect in jslirp:
                  --runas --log-size -F/--fd --socket --freebind --outbound-if4
                  --outbound-if6 -D/--dns -S/--search
                  --dhcp-dns --dhcp-search --no-tcp --no-udp --no-icmp --no-dhcp
                  --no-dhcpv6 --no-ndp --no-ra -e/--stderr
                """.formatted(program);
    }
}
