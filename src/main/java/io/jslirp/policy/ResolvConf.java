package io.jslirp.policy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads the upstream nameservers from a resolv.conf file. */
public final class ResolvConf {
    public static final Path DEFAULT = Path.of("/etc/resolv.conf");

    private ResolvConf() {}

    /**
     * The resolv.conf a guest that shares the host's files sees (jslirp run's command): the host's
     * file with its nameservers replaced by the virtual network's DNS addresses, its search
     * domains, options and comments kept.
     */
    public static String forGuest(List<String> hostLines, List<String> dnsAddresses) {
        StringBuilder b = new StringBuilder("# jslirp: the DNS address of the virtual network, which forwards to the host's nameservers\n");
        for (String a : dnsAddresses) b.append("nameserver ").append(a).append('\n');
        for (String line : hostLines) {
            String[] words = line.trim().split("\\s+");
            if (!words[0].equals("nameserver")) b.append(line).append('\n');
        }
        return b.toString();
    }

    /**
     * Every "nameserver" of the file, IPv4 and IPv6, in its order; lines that do not parse are
     * skipped, and a file that cannot be read names none.
     */
    public static List<Nameserver> nameservers(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            return List.of();
        }
        List<Nameserver> found = new ArrayList<>();
        for (String line : lines) {
            String[] words = line.trim().split("\\s+");
            if (words.length >= 2 && words[0].equals("nameserver")) {
                try {
                    Nameserver n = Nameserver.parse(words[1]);
                    if (!found.contains(n)) found.add(n);
                } catch (IllegalArgumentException notAnAddress) {
                    // as the C library does: a nameserver line it cannot parse is ignored
                }
            }
        }
        return List.copyOf(found);
    }
}
