package io.jslirp.cli;

import io.jslirp.forward.PortForward;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ipv6;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code jslirp forward add|list|remove}: a client of the API socket of a running jslirp (or
 * slirp4netns). Prints each reply on its own line; exits 1 when a reply is an error.
 */
@Command(name = "forward", mixinStandardHelpOptions = true,
        description = "Add, list or remove port forwards of a running jslirp (or slirp4netns) through its --api-socket.",
        subcommands = {ForwardCommand.Add.class, ForwardCommand.ListForwards.class, ForwardCommand.Remove.class},
        footer = {"", "Examples:", "  jslirp forward add --api-socket /tmp/api.sock 8080:80",
                "  jslirp forward add --api-socket /tmp/api.sock --udp 0.0.0.0/5353:53",
                "  jslirp forward list --api-socket /tmp/api.sock",
                "  jslirp forward remove --api-socket /tmp/api.sock 1"})
final class ForwardCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "missing command (add, list or remove)");
    }

    static final class Socket {
        @Option(names = {"-a", "--api-socket"}, paramLabel = "PATH", required = true, description = "the API socket of the running instance")
        Path path;

        /** Sends one request, prints the reply; 0, or 1 when the reply is an error. */
        int send(String request) throws IOException {
            String reply = ApiClient.exchange(path, request);
            System.out.println(reply);
            return reply.startsWith("{\"error\"") ? 1 : 0;
        }
    }

    @Command(name = "add", mixinStandardHelpOptions = true, description = "Forward a host port (or range) to the guest; prints the id of each.")
    static final class Add implements Callable<Integer> {
        @picocli.CommandLine.Mixin
        Socket socket;

        @Option(names = {"-u", "--udp"}, description = "a UDP port (default: TCP)")
        boolean udp;

        @Option(names = "--guest-addr", paramLabel = "IPv4", description = "the guest address (default: the guest's own)")
        String guestAddress;

        @Parameters(paramLabel = "FORWARD", description = "[ADDR/]PORT[-PORT][:GUESTPORT[-PORT]], as -t/-u; ADDR defaults to 127.0.0.1")
        String spec;

        @Override
        public Integer call() throws IOException {
            PortForward.Protocol protocol = udp ? PortForward.Protocol.UDP : PortForward.Protocol.TCP;
            String guest = guestAddress == null ? "" : ",\"guest_addr\":\"" + Ipv4.format(Ipv4.parse(guestAddress)) + "\"";
            int status = 0;
            for (PortForward f : PortForward.parse(protocol, spec)) {
                status |= socket.send("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"" + protocol.lowerCase()
                        + "\",\"host_addr\":\"" + hostAddress(f) + "\",\"host_port\":" + f.hostPort()
                        + guest + ",\"guest_port\":" + f.guestPort() + "}}");
            }
            return status;
        }

        /** As written; an IPv6 one too, which the API (as slirp4netns's) refuses with its bad-arguments error. */
        private static String hostAddress(PortForward f) {
            return f.ipv6() ? Ipv6.format(f.host6().hi(), f.host6().lo()) : Ipv4.format(f.hostAddress());
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the forwards added through the API socket.")
    static final class ListForwards implements Callable<Integer> {
        @picocli.CommandLine.Mixin
        Socket socket;

        @Override
        public Integer call() throws IOException {
            return socket.send("{\"execute\":\"list_hostfwd\"}");
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true, description = "Remove forwards by id (connections already made carry on).")
    static final class Remove implements Callable<Integer> {
        @picocli.CommandLine.Mixin
        Socket socket;

        @Parameters(paramLabel = "ID", arity = "1..*", description = "ids as add printed them")
        List<Integer> ids;

        @Override
        public Integer call() throws IOException {
            int status = 0;
            for (int id : ids) status |= socket.send("{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":" + id + "}}");
            return status;
        }
    }
}
