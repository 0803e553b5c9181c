package io.jslirp.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code jslirp status}: the open flows of a running jslirp, as {@code ss} lists sockets, then its
 * counters; from the API socket's {@code get_status}.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = {"Show the open connections and UDP flows of a running jslirp, then its counters.",
                "Guest: the guest's end. Remote: the other end as the guest sees it (10.0.2.2 for the host, or the gateway"
                        + " for a forwarded port's client). Host: the host socket's peer (where the flow goes, or the forwarded"
                        + " port's client). Dir: out (the guest opened it) or in (a forwarded port). Sent/Received: payload"
                        + " bytes from and to the guest."},
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
        JsonNode status = new ObjectMapper().readTree(reply).path("return");
        if (!status.isObject()) {
            System.err.println("jslirp: no status from " + path + ": " + reply);
            return 1;
        }
        System.out.print(flowTable(status.path("connections")));
        System.out.println();
        System.out.print(counterList(status.path("counters")));
        return 0;
    }

    /** One line per flow under a header, columns aligned (numbers to the right). */
    static String flowTable(JsonNode connections) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"Proto", "State", "Dir", "Guest", "Remote", "Host", "Sent", "Received", "Age"});
        for (JsonNode c : connections) {
            rows.add(new String[] {c.path("proto").asText(), c.path("state").asText(), c.path("forwarded").asBoolean() ? "in" : "out",
                    c.path("guest_addr").asText() + ":" + c.path("guest_port").asInt(),
                    c.path("remote_addr").asText() + ":" + c.path("remote_port").asInt(),
                    c.path("host_addr").asText() + ":" + c.path("host_port").asInt(),
                    Long.toString(c.path("bytes_from_guest").asLong()), Long.toString(c.path("bytes_to_guest").asLong()),
                    age(c.path("age_ms").asLong())});
        }
        boolean[] rightAligned = {false, false, false, false, false, false, true, true, true};
        return Columns.format(rows, rightAligned);
    }

    /** The counters, one "name value" per line, values aligned. */
    static String counterList(JsonNode counters) {
        List<String[]> rows = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = counters.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            rows.add(new String[] {e.getKey(), e.getValue().asText()});
        }
        return Columns.format(rows, new boolean[] {false, true});
    }

    /** An age as ss-like short text: 42s, 3m07s, 2h05m, 4d03h. */
    static String age(long millis) {
        long s = millis / 1000;
        if (s < 60) return s + "s";
        if (s < 3600) return String.format("%dm%02ds", s / 60, s % 60);
        if (s < 86400) return String.format("%dh%02dm", s / 3600, s % 3600 / 60);
        return String.format("%dd%02dh", s / 86400, s % 86400 / 3600);
    }
}
