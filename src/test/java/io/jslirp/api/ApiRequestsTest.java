package io.jslirp.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.flow.FlowStatus;
import io.jslirp.forward.HostForward;
import io.jslirp.forward.PortForward;
import io.jslirp.wire.Ipv4;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;
import org.junit.jupiter.api.Test;

/** The request logic against a fake target (ApiSocketIT compares the bytes with slirp4netns's). */
class ApiRequestsTest {
    /** Opens forwards unless the host port is taken; records what was closed. */
    static final class FakeTarget implements ApiTarget {
        final Set<Integer> taken = new HashSet<>();
        final List<PortForward> closed = new ArrayList<>();
        int guest = Ipv4.parse("10.0.2.100");

        @Override
        public HostForward open(PortForward forward) {
            if (!taken.add(forward.hostPort())) throw new IllegalArgumentException("taken");
            return new HostForward() {
                @Override
                public PortForward forward() {
                    return forward;
                }

                @Override
                public void close() {
                    taken.remove(forward.hostPort());
                    closed.add(forward);
                }
            };
        }

        @Override
        public void close(HostForward forward) {
            forward.close();
        }

        @Override
        public int guestAddress() {
            return guest;
        }

        @Override
        public void figures(ObjLongConsumer<String> sink) {
            sink.accept("frames_in", 3);
            sink.accept("open_tcp_connections", 1);
        }

        @Override
        public void flows(Consumer<FlowStatus> sink) {
            sink.accept(new FlowStatus("tcp", "tcp", "ESTABLISHED", false, "10.0.2.100", 40000, "10.0.2.2", 8080,
                    "127.0.0.1", 8080, 12, 34, 56, 78, 5_678_000_000L));
            sink.accept(new FlowStatus("udp", "udp", "open", true, "10.0.2.100", 53, "10.0.2.2", 32768,
                    "127.0.0.1", 41000, 0, 7, 0, 0, 0));
        }
    }

    private final FakeTarget target = new FakeTarget();
    private final ApiRequests api = new ApiRequests(target);

    private String send(String request) {
        byte[] b = request.getBytes(StandardCharsets.UTF_8);
        return api.reply(b, b.length);
    }

    @Test
    void addListRemove() {
        assertThat(send("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"udp\",\"host_port\":5353,\"guest_port\":53}}"))
                .isEqualTo("{\"return\":{\"id\":1}}");
        assertThat(send("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":80,"
                + "\"guest_addr\":\"10.0.2.7\",\"guest_port\":8080}}")).isEqualTo("{\"return\":{\"id\":2}}");
        target.guest = Ipv4.parse("10.0.2.15"); // a forward without guest_addr follows the guest
        assertThat(send("{\"execute\":\"list_hostfwd\"}")).isEqualTo("{\"entries\":["
                + "{\"id\":1,\"proto\":\"udp\",\"host_addr\":\"0.0.0.0\",\"host_port\":5353,\"guest_addr\":\"10.0.2.15\",\"guest_port\":53},"
                + "{\"id\":2,\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":80,\"guest_addr\":\"10.0.2.7\",\"guest_port\":8080}]}");
        assertThat(send("{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":1}}")).isEqualTo("{\"return\":{}}");
        assertThat(target.closed).extracting(PortForward::hostPort).containsExactly(5353);
        assertThat(send("{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":1}}"))
                .isEqualTo("{\"error\":{\"desc\":\"bad request: remove_hostfwd: bad arguments.id\"}}");
    }

    @Test
    void aFailedAddTakesNoId() {
        String add = "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_port\":80,\"guest_port\":80}}";
        assertThat(send(add)).isEqualTo("{\"return\":{\"id\":1}}");
        assertThat(send(add)).isEqualTo("{\"error\":{\"desc\":\"bad request: add_hostfwd: slirp_add_hostfwd failed\"}}");
        assertThat(send(add.replace(":80,", ":81,"))).isEqualTo("{\"return\":{\"id\":2}}");
    }

    /** Requests slirp4netns 1.2 crashes on (no proto) or silently wraps (ports beyond 16 bits) are refused. */
    @Test
    void whatSlirp4netnsMishandlesIsRefused() {
        assertThat(send("{\"execute\":\"add_hostfwd\",\"arguments\":{\"host_port\":80,\"guest_port\":80}}"))
                .isEqualTo("{\"error\":{\"desc\":\"bad request: add_hostfwd: bad arguments.proto\"}}");
        assertThat(send("{\"execute\":\"add_hostfwd\",\"arguments\":\"x\"}"))
                .isEqualTo("{\"error\":{\"desc\":\"bad request: add_hostfwd: bad arguments.proto\"}}");
        assertThat(send("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_port\":70000,\"guest_port\":80}}"))
                .isEqualTo("{\"error\":{\"desc\":\"bad request: add_hostfwd: bad arguments.host_port\"}}");
        assertThat(send("{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_port\":80,\"guest_port\":-1}}"))
                .isEqualTo("{\"error\":{\"desc\":\"bad request: add_hostfwd: bad arguments.guest_port\"}}");
        assertThat(target.taken).isEmpty();
    }

    @Test
    void getStatusListsFlowsThenCounters() {
        assertThat(send("{\"execute\":\"get_status\"}")).isEqualTo("{\"return\":{\"connections\":["
                + "{\"kind\":\"tcp\",\"proto\":\"tcp\",\"state\":\"ESTABLISHED\",\"forwarded\":false,\"guest_addr\":\"10.0.2.100\",\"guest_port\":40000,"
                + "\"remote_addr\":\"10.0.2.2\",\"remote_port\":8080,\"host_addr\":\"127.0.0.1\",\"host_port\":8080,"
                + "\"bytes_from_guest\":12,\"bytes_to_guest\":34,\"queued_to_host\":56,\"queued_to_guest\":78,\"age_ms\":5678},"
                + "{\"kind\":\"udp\",\"proto\":\"udp\",\"state\":\"open\",\"forwarded\":true,\"guest_addr\":\"10.0.2.100\",\"guest_port\":53,"
                + "\"remote_addr\":\"10.0.2.2\",\"remote_port\":32768,\"host_addr\":\"127.0.0.1\",\"host_port\":41000,"
                + "\"bytes_from_guest\":0,\"bytes_to_guest\":7,\"queued_to_host\":0,\"queued_to_guest\":0,\"age_ms\":0}],"
                + "\"counters\":{\"frames_in\":3,\"open_tcp_connections\":1}}}");
    }

    @Test
    void getCounters() {
        assertThat(send("{\"execute\":\"get_counters\"}")).isEqualTo("{\"return\":{\"frames_in\":3,\"open_tcp_connections\":1}}");
    }

    @Test
    void aRequestIsCompleteOnceItIsOneJsonValue() {
        byte[] b = "{\"execute\":\"list_hostfwd\"}".getBytes(StandardCharsets.UTF_8);
        for (int n = 0; n < b.length; n++) assertThat(ApiRequests.incomplete(b, n)).as("first %d bytes", n).isTrue();
        assertThat(ApiRequests.incomplete(b, b.length)).isFalse();
        byte[] bad = "{x".getBytes(StandardCharsets.UTF_8);
        assertThat(ApiRequests.incomplete(bad, bad.length)).as("cannot become JSON").isFalse();
    }
}
