package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --preserve-source}: a client of a forwarded port reaches the guest from its own address
 * and port, not from the gateway; a client on the host's loopback still comes from the gateway.
 * The stack's host side runs in a namespace made here, joined by a veth pair to a client namespace
 * at 192.0.2.77; the guest's servers answer each client with the address they see.
 */
class PreserveSourceIT {
    private static final String HOST_SIDE = "192.0.2.1", CLIENT = "192.0.2.77";

    @TempDir
    Path tmp;

    @Test
    @Timeout(180)
    void forwardedClientsKeepTheirAddressWithTheOption() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeJslirp("-t, -u and --preserve-source are jslirp's");
        ItEnv.assumeTools(ItEnv.python());
        String preserved = ForwardedClients.probeFromElsewhere(tmp, false, HOST_SIDE, CLIENT, true);
        assertThat(preserved).containsPattern("remote tcp " + CLIENT.replace(".", "\\.") + ":(\\d+) own port \\1\\b")
                .containsPattern("remote udp " + CLIENT.replace(".", "\\.") + ":(\\d+) own port \\1\\b")
                .as("a loopback client cannot be answered at 127.0.0.1: it comes from the gateway")
                .contains("loopback tcp 10.0.2.2:").contains("loopback udp 10.0.2.2:");
        String mapped = ForwardedClients.probeFromElsewhere(tmp, false, HOST_SIDE, CLIENT, false);
        assertThat(mapped).contains("remote tcp 10.0.2.2:").contains("remote udp 10.0.2.2:")
                .contains("loopback tcp 10.0.2.2:").contains("loopback udp 10.0.2.2:")
                .doesNotContain(CLIENT);
    }
}
