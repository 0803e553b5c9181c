package io.jslirp.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** The text {@code jslirp status} prints for a {@code get_status} reply: the flows as a table, then the counters. */
final class StatusReport {
    private StatusReport() {
    }

    /** The report, or null when reply is not a get_status result. */
    static String of(String reply) {
        JsonNode status;
        try {
            status = new ObjectMapper().readTree(reply).path("return");
        } catch (JsonProcessingException e) {
            return null;
        }
        if (!status.isObject()) return null;
        return flowTable(status.path("connections")) + "\n" + counterList(status.path("counters"));
    }

    /** One line per flow under a header, columns aligned (numbers to the right). */
    static String flowTable(JsonNode connections) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"Kind", "State", "Dir", "Guest", "Remote", "Host", "Sent", "Received", "ToHost-Q", "ToGuest-Q", "Age"});
        for (JsonNode c : connections) {
            rows.add(new String[] {c.path("kind").asText(c.path("proto").asText()), c.path("state").asText(), c.path("forwarded").asBoolean() ? "in" : "out",
                    c.path("guest_addr").asText() + ":" + c.path("guest_port").asInt(),
                    c.path("remote_addr").asText() + ":" + c.path("remote_port").asInt(),
                    c.path("host_addr").asText() + ":" + c.path("host_port").asInt(),
                    Long.toString(c.path("bytes_from_guest").asLong()), Long.toString(c.path("bytes_to_guest").asLong()),
                    Long.toString(c.path("queued_to_host").asLong()), Long.toString(c.path("queued_to_guest").asLong()),
                    age(c.path("age_ms").asLong())});
        }
        boolean[] rightAligned = {false, false, false, false, false, false, true, true, true, true, true};
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
