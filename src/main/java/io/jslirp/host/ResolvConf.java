package io.jslirp.host;

import io.jslirp.wire.Ipv4;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads the upstream nameserver from a resolv.conf file. */
public final class ResolvConf {
    public static final Path DEFAULT = Path.of("/etc/resolv.conf");

    private ResolvConf() {}

    /** The first IPv4 "nameserver" of the file, or 0 when it names none (or cannot be read). */
    public static int firstNameserver(Path file) {
        try {
            for (String line : Files.readAllLines(file)) {
                String[] words = line.trim().split("\\s+");
                if (words.length >= 2 && words[0].equals("nameserver")) {
                    try {
                        return Ipv4.parse(words[1]);
                    } catch (IllegalArgumentException notIpv4) {
                        // an IPv6 nameserver: IPv6 upstreams come with IPv6 support
                    }
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return 0;
    }
}
