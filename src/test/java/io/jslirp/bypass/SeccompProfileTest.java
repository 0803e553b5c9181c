package io.jslirp.bypass;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A profile of containers-common's shape with connect sent to the agent, and nothing else changed. */
class SeccompProfileTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void connectLeavesEveryRuleAndOneRuleSendsItToTheAgent() throws Exception {
        JsonNode base = JSON.readTree("""
                {"defaultAction":"SCMP_ACT_ERRNO","defaultErrnoRet":38,"syscalls":[
                  {"names":["accept","connect","read"],"action":"SCMP_ACT_ALLOW","args":[]},
                  {"names":["connect"],"action":"SCMP_ACT_ERRNO","args":[{"index":0,"value":1,"op":"SCMP_CMP_EQ"}]},
                  {"name":"connect","action":"SCMP_ACT_ALLOW"},
                  {"names":["socket"],"action":"SCMP_ACT_ALLOW","args":null}]}
                """);
        String before = base.toString();
        ObjectNode p = SeccompProfile.withNotify(base, "/run/user/1000/agent.sock");
        assertThat(base.toString()).as("the base is not changed").isEqualTo(before);
        assertThat(p.get("listenerPath").asText()).isEqualTo("/run/user/1000/agent.sock");
        assertThat(p.get("defaultAction").asText()).isEqualTo("SCMP_ACT_ERRNO");
        assertThat(p.get("defaultErrnoRet").asInt()).isEqualTo(38);
        List<String> connectRules = new ArrayList<>();
        for (JsonNode rule : p.get("syscalls")) {
            boolean names = false;
            for (JsonNode n : rule.path("names")) names |= n.asText().equals("connect");
            if (names || rule.path("name").asText().equals("connect")) connectRules.add(rule.get("action").asText());
        }
        assertThat(connectRules).containsExactly("SCMP_ACT_NOTIFY");
        assertThat(p.get("syscalls")).hasSize(3);
        assertThat(p.get("syscalls").get(0).get("names").toString()).isEqualTo("[\"accept\",\"read\"]");
        assertThat(p.get("syscalls").get(1).get("names").toString()).isEqualTo("[\"socket\"]");
    }

    @Test
    void somethingElseIsRefused() throws Exception {
        assertThatThrownBy(() -> SeccompProfile.withNotify(JSON.readTree("[1]"), "/x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("syscalls");
        assertThatThrownBy(() -> SeccompProfile.withNotify(JSON.readTree("{\"syscalls\":{}}"), "/x"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
