package io.jslirp.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.sys.Errno;
import io.jslirp.sys.Tap;
import org.junit.jupiter.api.Test;

/** What jslirp says when the kernel will not give it a tap: what is wrong and how to fix it, in one line. */
class GuestInterfaceTest {
    @Test
    void aTunDeviceOnlyRootMayOpenSaysHowToOpenItUp() {
        String line = GuestInterface.tunUnusable(unusable("tap0", Errno.EACCES), "rw-------");
        assertThat(line).startsWith("cannot create tap device tap0: open /dev/net/tun: Permission denied")
                .contains("/dev/net/tun is mode rw-------").contains("chmod 0666 /dev/net/tun").doesNotContain("\n");
    }

    @Test
    void aMissingTunDriverSaysToLoadIt() {
        assertThat(GuestInterface.tunUnusable(unusable("tap0", Errno.ENOENT), null)).contains("modprobe tun");
    }

    private static Tap.TunUnusable unusable(String ifname, int errno) {
        return new Tap.TunUnusable(ifname, errno);
    }
}
