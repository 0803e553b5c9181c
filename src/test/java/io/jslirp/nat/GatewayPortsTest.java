package io.jslirp.nat;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GatewayPortsTest {
    @Test
    void portsComeInTurnSkippingThoseInUseAndWrapAround() {
        GatewayPorts ports = new GatewayPorts();
        assertThat(ports.take(p -> true)).isEqualTo(32768);
        assertThat(ports.take(p -> p != 32769)).isEqualTo(32770);
        assertThat(ports.take(p -> p == 60999)).isEqualTo(60999);
        assertThat(ports.take(p -> true)).as("after the last, the first again").isEqualTo(32768);
    }

    @Test
    void noneWhenEveryPortIsInUse() {
        assertThat(new GatewayPorts().take(p -> false)).isEqualTo(-1);
    }
}
