package io.jslirp.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace made for one test: {@code unshare --net sleep infinity} holds it (its PID is
 * what a stack attaches to); commands run inside with {@code nsenter --net=/proc/PID/ns/net}.
 * Closing kills the holder, which frees the namespace and every device in it.
 *
 * <p>Safety: {@link #create()} waits until the holder really is in a new network namespace before
 * returning (a stack attached a moment too early would configure the host's namespace), disables
 * IPv6 and installs an nftables output filter inside the namespace that lets the guest's own
 * sockets talk only to the gateway 10.0.2.2, the DNS address 10.0.2.3 and DHCP broadcasts.
 * {@link #createWithIpv6()} leaves IPv6 on and lets through, besides, only fd00::2, fd00::3,
 * ICMPv6 on the link (Neighbor and Router Discovery, to link-local and ff02::/16 addresses) and
 * DHCPv6 to ff02::1:2.
 */
public final class Namespace implements AutoCloseable {
    public static final String GATEWAY = "10.0.2.2";
    public static final String DNS = "10.0.2.3";
    public static final String GATEWAY6 = "fd00::2";
    public static final String DNS6 = "fd00::3";

    private final Process holder;
    private final long pid;

    private Namespace(Process holder) {
        this.holder = holder;
        this.pid = holder.pid();
    }

    /** A new namespace, IPv4 only, with the egress guard. */
    public static Namespace create() {
        return create(false);
    }

    /**
     * As {@link #create()}, in a user namespace of its own too ({@code unshare --user
     * --map-root-user --net}), as rootless callers make them: slirp4netns joins the holder's user
     * namespace before its network namespace.
     */
    public static Namespace createInOwnUserNamespace() {
        return create(false, List.of("--user", "--map-root-user"));
    }

    /** A new namespace with IPv6 on, with the egress guard for both. */
    public static Namespace createWithIpv6() {
        return create(true);
    }

    private static Namespace create(boolean ipv6) {
        return create(ipv6, List.of());
    }

    private static Namespace create(boolean ipv6, List<String> unshareOptions) {
        List<String> cmd = new ArrayList<>(List.of("unshare"));
        cmd.addAll(unshareOptions);
        cmd.addAll(List.of("--net", "--", "sleep", "infinity"));
        Process p;
        try {
            p = new ProcessBuilder(cmd)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + cmd, e);
        }
        Namespace ns = new Namespace(p);
        try {
            ns.awaitOwnNetns();
            ns.setUp(ipv6);
            return ns;
        } catch (RuntimeException | Error e) {
            ns.close();
            throw e;
        }
    }

    private void awaitOwnNetns() {
        awaitOwnNetns(holder);
    }

    /**
     * Waits until {@code holder} (an {@code unshare ... --net sleep infinity}, whoever runs it) is
     * in a network namespace other than ours and has exec'd sleep.
     */
    static void awaitOwnNetns(Process holder) {
        String host = link("/proc/self/ns/net");
        long pid = holder.pid();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            if (!holder.isAlive()) throw new IllegalStateException("unshare --net exited with " + holder.exitValue());
            String mine = link("/proc/" + pid + "/ns/net");
            if (mine != null && !mine.equals(host)) {
                // unshare has switched namespaces; also wait for the exec of sleep
                if (comm(pid).equals("sleep")) return;
            }
            sleep(10);
        }
        throw new IllegalStateException("unshare --net (pid " + pid + ") did not enter a new network namespace in time");
    }

    private static String comm(long pid) {
        try {
            return Files.readString(Path.of("/proc/" + pid + "/comm")).strip();
        } catch (IOException e) {
            return "";
        }
    }

    private static String link(String path) {
        try {
            return Files.readSymbolicLink(Path.of(path)).toString();
        } catch (IOException e) {
            return null;
        }
    }

    private void setUp(boolean ipv6) {
        require(exec(Duration.ofSeconds(10), "ip", "link", "set", "lo", "up"));
        int off = ipv6 ? 0 : 1;
        require(exec(Duration.ofSeconds(10), "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=" + off,
                "net.ipv6.conf.default.disable_ipv6=" + off));
        guardEgress(netnsPath(), ipv6);
    }

    /**
     * Installs the egress guard (see the class comment) in the network namespace at {@code netns},
     * one of the test's making (also one an ordinary user made: root may configure it); without
     * nft, nothing.
     */
    static void guardEgress(String netns, boolean ipv6) {
        if (ItEnv.which("nft") == null) return;
        String ipv6Rules = !ipv6 ? "" : """
                    ip6 daddr { fd00::2, fd00::3 } accept
                    ip6 daddr { fe80::/10, ff02::/16 } meta l4proto ipv6-icmp accept
                    ip6 daddr ff02::1:2 udp dport 547 accept
                """;
        String rules = """
                table inet jslirp_it_guard {
                  chain out {
                    type filter hook output priority 0; policy drop;
                    oif "lo" accept
                    ip daddr { 10.0.2.2, 10.0.2.3 } accept
                    ip daddr 255.255.255.255 udp dport 67 accept
                %s  }
                }
                """.formatted(ipv6Rules);
        Path f = null;
        try {
            f = Files.createTempFile("jslirp-it-guard", ".nft");
            Files.writeString(f, rules);
            require(Cmd.run(Duration.ofSeconds(10), "nsenter", "--net=" + netns, "--", "nft", "-f", f.toString()));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } finally {
            Cmd.deleteQuietly(f);
        }
    }

    /**
     * Lets the guest's sockets also send to address. Only for a test whose stack's own host side
     * is in a namespace of the test's making (nothing reaches the real network from there).
     */
    public void allowEgress(String address) {
        require(exec(Duration.ofSeconds(10), "nft", "add", "rule", "inet", "jslirp_it_guard", "out", "ip", "daddr", address, "accept"));
    }

    /** As {@link #allowEgress}, for an IPv6 address (a namespace made with {@link #createWithIpv6()}). */
    public void allowEgress6(String address) {
        require(exec(Duration.ofSeconds(10), "nft", "add", "rule", "inet", "jslirp_it_guard", "out", "ip6", "daddr", address, "accept"));
    }

    private static void require(Cmd.Result r) {
        if (r.exit() != 0) throw new IllegalStateException("namespace set-up failed: " + r.describe());
    }

    /** PID of the process holding the namespace (what {@code attach PID} takes). */
    public long pid() {
        return pid;
    }

    /** {@code /proc/PID/ns/user}. */
    public String userNamespacePath() {
        return "/proc/" + pid + "/ns/user";
    }

    /** {@code /proc/PID/ns/net}. */
    public String netnsPath() {
        return "/proc/" + pid + "/ns/net";
    }

    /** The command line that runs {@code cmd} inside the namespace. */
    public List<String> inside(List<String> cmd) {
        List<String> full = new ArrayList<>(List.of("nsenter", "--net=" + netnsPath(), "--"));
        full.addAll(cmd);
        return full;
    }

    public Cmd.Result exec(Duration timeout, String... cmd) {
        return Cmd.run(timeout, inside(List.of(cmd)));
    }

    /** Runs a bash script inside the namespace with {@code set -o pipefail}. */
    public Cmd.Result bash(Duration timeout, String script) {
        return exec(timeout, "bash", "-c", "set -o pipefail; " + script);
    }

    /** Diagnostics: addresses, routes, links and neighbours inside. */
    public String describe() {
        if (!holder.isAlive()) return "(namespace holder gone)";
        return exec(Duration.ofSeconds(10), "sh", "-c", "ip -o addr; ip route; ip -o link; ip neigh").out();
    }

    public boolean alive() {
        return holder.isAlive();
    }

    @Override
    public void close() {
        killProcessesInside();
        holder.destroy();
        try {
            if (!holder.waitFor(5, TimeUnit.SECONDS)) {
                holder.destroyForcibly();
                holder.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Ends every other process still in this namespace (a guest command a failed test left running). */
    private void killProcessesInside() {
        Path mine = Path.of("/proc/" + pid + "/ns/net");
        ProcessHandle.allProcesses()
                .filter(p -> p.pid() != pid)
                .filter(p -> {
                    try {
                        return Files.isSameFile(mine, Path.of("/proc/" + p.pid() + "/ns/net"));
                    } catch (IOException | SecurityException e) {
                        return false; // gone, or not ours to inspect
                    }
                })
                .forEach(ProcessHandle::destroyForcibly);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
