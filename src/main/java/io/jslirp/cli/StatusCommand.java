package io.jslirp.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code jslirp status}: the open flows of a running jslirp, as {@code ss} lists sockets, then its
 * counters; from the API socket's {@code get_status}. (The JSON handling is in {@link StatusReport},
 * so that building the command line, which reflects over every command, does not load Jackson.)
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Show the open connections and UDP flows of a running jslirp, then its counters.",
                "",
                "Columns:",
                "  Proto      tcp or udp",
                "  State      TCP state toward the guest (ESTABLISHED, SYN_SENT while a forwarded",
                "             connection waits for the guest, ...); open for UDP",
                "  Dir        out: the guest opened it; in: a client of a forwarded port",
                "  Guest      the guest's end, address:port",
                "  Remote     the other end as the guest sees it (10.0.2.2 for the host's",
                "             loopback; the gateway for a forwarded port's client)",
                "  Host       the host socket's peer: where the flow goes, or the forwarded",
                "             port's client",
                "  Sent       payload bytes from the guest that went out on the host socket",
                "  Received   payload bytes read from the host socket for the guest",
                "  ToHost-Q   bytes the guest sent that the host peer has not acknowledged yet",
                "             (held by jslirp, and in the host socket's send queue)",
                "  ToGuest-Q  bytes from the host peer that the guest has not acknowledged yet",
                "             (sent or still waiting, in the host socket's receive queue)",
                "  Age        time since the flow opened (42s, 3m07s, 2h05m, 4d03h)",
                "Then each counter of the instance, one a line (as the API's get_counters)."},
        footer = {"", "Example:", "  jslirp run --api-socket /tmp/api.sock -- sh     # then, elsewhere:",
                "  jslirp status --api-socket /tmp/api.sock",
                "  jslirp status --api-socket /tmp/api.sock --json"})
final class StatusCommand implements Callable<Integer> {
    @Option(names = {"-a", "--api-socket"}, paramLabel = "PATH", required = true, description = "the API socket of the running jslirp")
    Path path;

    @Option(names = "--json", description = "print the reply of the API's get_status as it came")
    boolean json;

    @Override
    public Integer call() throws IOException {
        String reply = ApiClient.exchange(path, "{\"execute\":\"get_status\"}");
        if (json) {
            System.out.println(reply);
            return reply.startsWith("{\"error\"") ? 1 : 0;
        }
        String report = StatusReport.of(reply);
        if (report == null) {
            System.err.println("jslirp: no status from " + path + ": " + reply);
            return 1;
        }
        System.out.print(report);
        return 0;
    }
}
