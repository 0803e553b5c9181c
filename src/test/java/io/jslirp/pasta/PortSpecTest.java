package io.jslirp.pasta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PortSpecTest {
    private static final PortSpec.Ephemeral EPHEMERAL = new PortSpec.Ephemeral(32768, 60999);

    private static List<String> ranges(char option, String spec) {
        return PortSpec.parse(option, spec, EPHEMERAL).ranges().stream().map(PortSpec.Range::toString).toList();
    }

    @Test
    void pastasExamples() {
        assertThat(ranges('t', "22")).containsExactly("22");
        assertThat(ranges('t', "22:23")).containsExactly("22:23");
        assertThat(ranges('t', "22,25")).containsExactly("22", "25");
        assertThat(ranges('t', "22-80")).containsExactly("22-80");
        assertThat(ranges('t', "22-80:32-90")).containsExactly("22-80:32-90");
        assertThat(ranges('t', "192.0.2.1/5")).containsExactly("192.0.2.1/5");
        assertThat(ranges('t', "5-25,~10-20")).containsExactly("5-9", "21-25");
        assertThat(ranges('u', "~10-20,5-25")).as("exclusions may come first").containsExactly("5-9", "21-25");
    }

    @Test
    void aTranslatedRangeKeepsItsOffsetAcrossExclusions() {
        List<PortSpec.Range> r = PortSpec.parse('t', "8000-8009:9000-9009,~8003", EPHEMERAL).ranges();
        assertThat(r).extracting(PortSpec.Range::toString).containsExactly("8000-8002:9000-9002", "8004-8009:9004-9009");
        assertThat(r.get(1).to(8009)).isEqualTo(9009);
        assertThat(r.get(1).everyPort()).isFalse();
        assertThat(r.get(1).spec()).isEqualTo("8000-8009:9000-9009,~8003");
    }

    @Test
    void exclusionsAloneMeanEveryOtherPortButTheEphemeralOnes() {
        List<PortSpec.Range> r = PortSpec.parse('t', "~25,~8080-8081", EPHEMERAL).ranges();
        assertThat(r).extracting(PortSpec.Range::toString).containsExactly("1-24", "26-8079", "8082-32767", "61000-65535");
        assertThat(r).allMatch(PortSpec.Range::everyPort);
        assertThat(ranges('t', "::1/~22")).containsExactly("::1/1-21", "::1/23-32767", "::1/61000-65535");
    }

    @Test
    void allIsEveryPortButTheEphemeralOnes() {
        PortSpec all = PortSpec.parse('u', "all", new PortSpec.Ephemeral(49152, 65535));
        assertThat(all.mode()).isEqualTo(PortSpec.Mode.ALL);
        assertThat(all.ranges()).extracting(PortSpec.Range::toString).containsExactly("1-49151");
        assertThat(PortSpec.parse('t', "none", EPHEMERAL)).isEqualTo(new PortSpec(PortSpec.Mode.NONE, List.of()));
        assertThat(PortSpec.parse('T', "auto", EPHEMERAL).mode()).isEqualTo(PortSpec.Mode.AUTO);
    }

    @Test
    void addressesAndInterfaces() {
        assertThat(ranges('t', "::1/8080-8080:80-80")).containsExactly("::1/8080:80");
        assertThat(ranges('t', "[::1]/8080")).containsExactly("::1/8080");
        assertThat(ranges('t', "[192.0.2.1]/80")).containsExactly("192.0.2.1/80");
        assertThat(ranges('u', "%lo/53")).containsExactly("%lo/53");
        assertThat(ranges('t', "192.0.2.2%eth0/80")).containsExactly("192.0.2.2%eth0/80");
        assertThat(ranges('t', "fe80::1%eth0/80")).containsExactly("fe80::1%eth0/80");
        PortSpec.Range any = PortSpec.parse('t', "::/80", EPHEMERAL).ranges().get(0);
        assertThat(any.address()).as(":: is IPv6's any address only, unlike no address").isEqualTo(Inet.parse6("::"));
        assertThat(PortSpec.parse('t', "80", EPHEMERAL).ranges().get(0).address()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "0", "65536", "80-79", "80:90-91", "80-81:90", "80x", "80,", ",80", "~80:90", "abc", "-80",
            "80-", "~", "1.2.3/80", "/80", "192.0.2.1/", "%0123456789abcdef/80", "[::1/80", "host/80", "::1:80"})
    void badSpecifiers(String spec) {
        assertThatThrownBy(() -> PortSpec.parse('t', spec, EPHEMERAL)).isInstanceOf(PastaError.class)
                .hasMessage("Invalid port specifier " + spec);
    }

    @Test
    void theNamespaceSideTakesNoAddress() {
        assertThatThrownBy(() -> PortSpec.parse('T', "127.0.0.1/80", EPHEMERAL)).hasMessage("Invalid port specifier 127.0.0.1/80");
        assertThatThrownBy(() -> PortSpec.parse('U', "%lo/53", EPHEMERAL)).hasMessage("Invalid port specifier %lo/53");
        assertThat(ranges('T', "~22")).hasSize(3);
    }

    @Test
    void overlappingExclusions() {
        assertThatThrownBy(() -> PortSpec.parse('t', "1-100,~10-20,~15", EPHEMERAL)).isInstanceOf(PastaError.class)
                .hasMessage("Overlapping excluded ranges 1-100,~10-20,~15");
        assertThat(ranges('t', "1-30,~10-20,~21")).containsExactly("1-9", "22-30");
    }

    @Test
    void ephemeralRange() {
        assertThat(PortSpec.Ephemeral.parse("32768\t60999\n")).isEqualTo(new PortSpec.Ephemeral(32768, 60999));
        assertThat(PortSpec.Ephemeral.parse("garbage")).isEqualTo(PortSpec.Ephemeral.DEFAULT);
        assertThat(PortSpec.Ephemeral.parse("60999 32768")).isEqualTo(PortSpec.Ephemeral.DEFAULT);
        PortSpec.Ephemeral here = PortSpec.Ephemeral.read();
        assertThat(here.first()).isLessThanOrEqualTo(here.last());
    }
}
