package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Contract item 6: a closed host port is refused at once (RST to the guest), not left to time out. */
class ConnectRefusedIT {
    @Test
    @Timeout(60)
    void closedHostPortIsRefusedAtOnce() throws Exception {
        ItEnv.assumeStack();
        ItEnv.assumeTools("curl");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            Cmd.Result r = ns.exec(Duration.ofSeconds(20), "curl", "-sS", "--connect-timeout", "5",
                    "http://" + Namespace.GATEWAY + ":" + port + "/");
            // 7 = could not connect (refused); 28 would be a timeout
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isEqualTo(7);
            assertThat(r.took()).as("refusal must be immediate").isLessThan(Duration.ofSeconds(3));
            assertThat(stack.alive()).as(stack.describe()).isTrue();
        }
    }
}
