package io.jslirp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The status table and counter list built from a get_status reply. */
class StatusReportTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void flowsAreAlignedColumnsWithNumbersToTheRight() throws Exception {
        String table = StatusReport.flowTable(JSON.readTree("[{\"proto\":\"tcp\",\"state\":\"ESTABLISHED\",\"forwarded\":false,"
                + "\"guest_addr\":\"10.0.2.100\",\"guest_port\":40000,\"remote_addr\":\"10.0.2.2\",\"remote_port\":8080,"
                + "\"host_addr\":\"127.0.0.1\",\"host_port\":8080,\"bytes_from_guest\":123456,\"bytes_to_guest\":7,\"queued_to_host\":4096,\"queued_to_guest\":65536,\"age_ms\":185000},"
                + "{\"proto\":\"udp\",\"state\":\"open\",\"forwarded\":true,\"guest_addr\":\"10.0.2.100\",\"guest_port\":53,"
                + "\"remote_addr\":\"10.0.2.2\",\"remote_port\":32768,\"host_addr\":\"127.0.0.1\",\"host_port\":41000,"
                + "\"bytes_from_guest\":0,\"bytes_to_guest\":12,\"age_ms\":999}]"));
        assertThat(table).isEqualTo("""
                Kind  State        Dir  Guest             Remote          Host               Sent  Received  ToHost-Q  ToGuest-Q    Age
                tcp   ESTABLISHED  out  10.0.2.100:40000  10.0.2.2:8080   127.0.0.1:8080   123456         7      4096      65536  3m05s
                udp   open         in   10.0.2.100:53     10.0.2.2:32768  127.0.0.1:41000       0        12         0          0     0s
                """);
    }

    @Test
    void noFlowsIsTheHeaderAlone() throws Exception {
        assertThat(StatusReport.flowTable(JSON.readTree("[]"))).isEqualTo("Kind  State  Dir  Guest  Remote  Host  Sent  Received  ToHost-Q  ToGuest-Q  Age\n");
    }

    @Test
    void countersOnePerLine() throws Exception {
        assertThat(StatusReport.counterList(JSON.readTree("{\"frames_in\":12345,\"refused_at_limit\":0}")))
                .isEqualTo("frames_in         12345\nrefused_at_limit      0\n");
    }

    @Test
    void notAStatusReplyIsNull() {
        assertThat(StatusReport.of("{\"error\":{\"desc\":\"bad request: unknown execute\"}}")).isNull();
        assertThat(StatusReport.of("not json")).isNull();
    }

    @Test
    void ages() {
        assertThat(StatusReport.age(59_999)).isEqualTo("59s");
        assertThat(StatusReport.age(3_600_000)).isEqualTo("1h00m");
        assertThat(StatusReport.age(90_061_000)).isEqualTo("1d01h");
    }
}
