package io.jslirp.isolate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class InPlaceTest {
    @Test
    void aUserIsMappedWhenALineOfUidMapHoldsIt() {
        List<String> podman = List.of("         0       1000          1", "         1     100000      65536");
        assertThat(InPlace.mapped(podman, 0)).isTrue();
        assertThat(InPlace.mapped(podman, InPlace.NOBODY)).isTrue();
        assertThat(InPlace.mapped(podman, 65536)).isTrue();
        assertThat(InPlace.mapped(podman, 65537)).isFalse();
        List<String> rootOnly = List.of("         0       1000          1");
        assertThat(InPlace.mapped(rootOnly, InPlace.NOBODY)).as("unshare --map-root-user").isFalse();
        assertThat(InPlace.mapped(List.of("0 0 4294967295"), InPlace.NOBODY)).as("the host's user namespace").isTrue();
        assertThat(InPlace.mapped(List.of("", "garbage here", "0 x 1"), 0)).isFalse();
    }

    @Test
    void outcomeSaysWhatWasDoneOrWhyNot() {
        assertThat(new InPlace.Outcome(false, null, "no mount namespace of its own")).hasToString(
                "not isolated: no mount namespace of its own");
        assertThat(new InPlace.Outcome(true, "every thread user 65534, without capabilities", null).toString())
                .isEqualTo("isolated: an empty root; every thread user 65534, without capabilities; seccomp filter on every thread");
    }

    @Test
    void refusesWithoutTheLaunchersPrivateMountNamespace() {
        // the tests' JVM was not started by the launcher in a mount namespace of its own: nothing may change
        InPlace.Outcome o = InPlace.confine(List.of(), List.of());
        assertThat(o.root()).isFalse();
        assertThat(o.reason()).contains(InPlace.PRIVATE_MOUNTS);
    }
}
