package io.jslirp.pasta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PortForwardingTest {
    private static final PortSpec.Ephemeral EPHEMERAL = new PortSpec.Ephemeral(32768, 60999);
    private final List<String> warnings = new ArrayList<>();

    private PortForwarding of(char option, String... specs) {
        PortForwarding f = new PortForwarding(option);
        for (String s : specs) f.add(s, false, EPHEMERAL, warnings);
        return f;
    }

    @Test
    void unsetIsAuto() {
        PortForwarding f = new PortForwarding('U');
        assertThat(f.isSet()).isFalse();
        assertThat(f.mode()).isEqualTo(PortSpec.Mode.AUTO);
        assertThat(f.target(53)).isEqualTo(-1);
        assertThat(f.ports().isEmpty()).isTrue();
        assertThat(f.toString()).isEqualTo("-U auto (unset)");
    }

    @Test
    void listsAddUpAndTheLastTranslationOfAPortWins() {
        PortForwarding f = of('t', "127.0.0.1/80:8080", "22,2222", "192.0.2.2/80:9090");
        assertThat(f.mode()).isEqualTo(PortSpec.Mode.SPEC);
        assertThat(f.ranges()).hasSize(4);
        assertThat(f.target(80)).as("pasta keeps one translation per port").isEqualTo(9090);
        assertThat(f.target(22)).isEqualTo(22);
        assertThat(f.target(23)).isEqualTo(-1);
        assertThat(f.ports().stream().boxed().toList()).containsExactly(22, 80, 2222);
        assertThat(f.specs()).containsExactly("127.0.0.1/80:8080", "22,2222", "192.0.2.2/80:9090");
        assertThat(warnings).containsExactly("Altering mapping of already mapped port number: 192.0.2.2/80:9090");
    }

    @Test
    void aPortTwiceInOneListIsRemappedToo() {
        of('t', "80,80:81");
        assertThat(warnings).containsExactly("Altering mapping of already mapped port number: 80,80:81");
    }

    @Test
    void modesConflictAsInPasta() {
        assertThatThrownBy(() -> of('t', "none", "none")).hasMessage("Port forwarding mode 'none' conflicts with previous mode");
        assertThatThrownBy(() -> of('t', "80", "auto")).hasMessage("Port forwarding mode 'auto' conflicts with previous mode");
        assertThatThrownBy(() -> of('t', "all", "80")).hasMessage("Specific ports cannot be specified together with all/none/auto");
        assertThatThrownBy(() -> of('t', "none", "80x")).as("the mode is checked before the syntax")
                .hasMessage("Specific ports cannot be specified together with all/none/auto");
        PortForwarding f = new PortForwarding('T');
        f.add("none", true, EPHEMERAL, warnings);
        assertThat(f.mode()).isEqualTo(PortSpec.Mode.NONE);
        assertThatThrownBy(() -> new PortForwarding('U').add("auto", true, EPHEMERAL, warnings))
                .hasMessage("UDP port forwarding requested but UDP is disabled");
    }

    @Test
    void pastasBindMessages() {
        PortForwarding f = of('u', "5353:53");
        assertThat(f.bindFailure(5353, "Address already in use", "5353:53"))
                .isEqualTo("Failed to bind port 5353 (Address already in use) for option '-u 5353:53', exiting");
        assertThat(f.bindNoneFailure("~53")).isEqualTo("Failed to bind any port for '-u ~53', exiting");
        assertThat(PortForwarding.descriptorsFailure("all")).isEqualTo("Can't open enough sockets for port specifier: all");
    }
}
