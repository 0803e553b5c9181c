package io.jslirp.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Contract item 3: the gateway answers ping. */
class PingIT {
    @Test
    @Timeout(60)
    void gatewayAnswersPing() {
        ItEnv.assumeStack();
        ItEnv.assumeTools("ping");
        try (Namespace ns = Namespace.create();
             Stack.Running stack = Stack.attach(ns, Stack.Options.configured())) {
            Cmd.Result r = ns.exec(Duration.ofSeconds(30), "ping", "-c", "3", "-W", "2", Namespace.GATEWAY);
            assertThat(r.exit()).as("%s\n%s", r, stack.describe()).isZero();
            assertThat(r.out()).contains("3 packets transmitted, 3 received");
        }
    }
}
