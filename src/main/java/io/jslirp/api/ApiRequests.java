package io.jslirp.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jslirp.forward.HostForward;
import io.jslirp.forward.PortForward;
import io.jslirp.wire.Ipv4;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The requests of slirp4netns's API socket ({@code add_hostfwd}, {@code list_hostfwd},
 * {@code remove_hostfwd}) with slirp4netns 1.2's replies byte for byte, and jslirp's own
 * {@code get_counters} and {@code get_status} (open flows and counters, for {@code jslirp status}). Also a request slirp4netns 1.2 crashes on (no {@code arguments.proto}) or
 * silently wraps (a port outside 1..65535) gets an error reply here.
 */
public final class ApiRequests {
    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    static {
        // Jackson sets itself up on its first parse: here, before the loop runs, not during a request.
        parse(new byte[] {'{', '}'}, 2);
    }

    private final ApiTarget target;
    /** Forwards added through the API, by id, in the order they were added. */
    private final Map<Integer, HostForward> forwards = new LinkedHashMap<>();
    private int nextId = 1;

    public ApiRequests(ApiTarget target) {
        this.target = target;
    }

    /** The parsed request, or null when the bytes are not one complete JSON value. */
    static JsonNode parse(byte[] request, int length) {
        try {
            JsonNode n = JSON.readTree(request, 0, length);
            return n == null || n.isMissingNode() ? null : n;
        } catch (IOException e) {
            return null;
        }
    }

    /** Whether more bytes could still complete the request (it is a valid beginning of JSON). */
    static boolean incomplete(byte[] request, int length) {
        try {
            JsonNode n = JSON.readTree(request, 0, length);
            return n == null || n.isMissingNode();
        } catch (JsonEOFException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The reply to a request (without a newline, as slirp4netns writes it). */
    public String reply(byte[] request, int length) {
        JsonNode root = parse(request, length);
        if (root == null) return error("cannot parse JSON");
        if (!root.isObject()) return error("json_object() failed");
        JsonNode execute = root.get("execute");
        if (execute == null || !execute.isTextual()) return error("no execute found");
        JsonNode arguments = root.path("arguments");
        return switch (execute.asText()) {
            case "add_hostfwd" -> add(arguments);
            case "list_hostfwd" -> list();
            case "remove_hostfwd" -> remove(arguments);
            case "get_counters" -> "{\"return\":" + counters() + "}";
            case "get_status" -> status();
            default -> error("unknown execute");
        };
    }

    /** The reply for a request of MAX bytes or more. */
    public static String tooLarge() {
        return error("too large message");
    }

    private String add(JsonNode arguments) {
        PortForward.Protocol protocol = switch (text(arguments, "proto")) {
            case "tcp" -> PortForward.Protocol.TCP;
            case "udp" -> PortForward.Protocol.UDP;
            case null, default -> null;
        };
        if (protocol == null) return error("add_hostfwd: bad arguments.proto");
        String hostText = text(arguments, "host_addr");
        int hostAddress;
        try {
            hostAddress = Ipv4.parse(hostText == null || hostText.isEmpty() ? "0.0.0.0" : hostText);
        } catch (IllegalArgumentException e) {
            return error("add_hostfwd: bad arguments.host_addr");
        }
        int hostPort = number(arguments, "host_port");
        if (hostPort < 1 || hostPort > 65535) return error("add_hostfwd: bad arguments.host_port");
        String guestText = text(arguments, "guest_addr");
        int guestAddress = 0; // the guest's own address
        if (guestText != null && !guestText.isEmpty()) {
            try {
                guestAddress = Ipv4.parse(guestText);
            } catch (IllegalArgumentException e) {
                return error("add_hostfwd: bad arguments.guest_addr");
            }
        }
        int guestPort = number(arguments, "guest_port");
        if (guestPort < 1 || guestPort > 65535) return error("add_hostfwd: bad arguments.guest_port");
        HostForward opened;
        try {
            opened = target.open(new PortForward(protocol, hostAddress, hostPort, guestAddress, guestPort));
        } catch (IllegalArgumentException e) {
            return error("add_hostfwd: slirp_add_hostfwd failed");
        }
        int id = nextId++;
        forwards.put(id, opened);
        return "{\"return\":{\"id\":" + id + "}}";
    }

    private String list() {
        StringBuilder b = new StringBuilder("{\"entries\":[");
        String sep = "";
        for (Map.Entry<Integer, HostForward> e : forwards.entrySet()) {
            PortForward f = e.getValue().forward();
            int guest = f.guestAddress() != 0 ? f.guestAddress() : target.guestAddress();
            b.append(sep).append("{\"id\":").append(e.getKey())
                    .append(",\"proto\":\"").append(f.protocol().lowerCase())
                    .append("\",\"host_addr\":\"").append(Ipv4.format(f.hostAddress()))
                    .append("\",\"host_port\":").append(f.hostPort())
                    .append(",\"guest_addr\":\"").append(Ipv4.format(guest))
                    .append("\",\"guest_port\":").append(f.guestPort()).append('}');
            sep = ",";
        }
        return b.append("]}").toString();
    }

    private String remove(JsonNode arguments) {
        HostForward f = forwards.remove(number(arguments, "id"));
        if (f == null) return error("remove_hostfwd: bad arguments.id");
        target.close(f);
        return "{\"return\":{}}";
    }

    /** The counters as one JSON object. */
    private String counters() {
        StringBuilder b = new StringBuilder("{");
        String[] sep = {""};
        target.figures((name, value) -> {
            b.append(sep[0]).append('"').append(name).append("\":").append(value);
            sep[0] = ",";
        });
        return b.append('}').toString();
    }

    /** Every open flow (as {@code ss} lists sockets), then the counters. */
    private String status() {
        StringBuilder b = new StringBuilder("{\"return\":{\"connections\":[");
        String[] sep = {""};
        target.flows(f -> {
            b.append(sep[0]).append("{\"kind\":\"").append(f.kind())
                    .append("\",\"proto\":\"").append(f.protocol())
                    .append("\",\"state\":\"").append(f.state())
                    .append("\",\"forwarded\":").append(f.forwarded())
                    .append(",\"guest_addr\":\"").append(f.guestAddress())
                    .append("\",\"guest_port\":").append(f.guestPort())
                    .append(",\"remote_addr\":\"").append(f.remoteAddress())
                    .append("\",\"remote_port\":").append(f.remotePort())
                    .append(",\"host_addr\":\"").append(f.hostAddress())
                    .append("\",\"host_port\":").append(f.hostPort())
                    .append(",\"bytes_from_guest\":").append(f.fromGuest())
                    .append(",\"bytes_to_guest\":").append(f.toGuest())
                    .append(",\"queued_to_host\":").append(f.queuedToHost())
                    .append(",\"queued_to_guest\":").append(f.queuedToGuest())
                    .append(",\"age_ms\":").append(f.ageNanos() / 1_000_000).append('}');
            sep[0] = ",";
        });
        return b.append("],\"counters\":").append(counters()).append("}}").toString();
    }

    /** A string argument, or null when absent or not a string (parson's json_object_dotget_string). */
    private static String text(JsonNode arguments, String name) {
        JsonNode v = arguments.get(name);
        return v != null && v.isTextual() ? v.asText() : null;
    }

    /** A number argument truncated to an int, 0 when absent or not a number (parson's json_object_dotget_number). */
    private static int number(JsonNode arguments, String name) {
        JsonNode v = arguments.get(name);
        return v != null && v.isNumber() ? (int) v.asDouble() : 0;
    }

    private static String error(String what) {
        return "{\"error\":{\"desc\":\"bad request: " + what + "\"}}";
    }
}
