package io.jslirp.isolate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class RelaunchTest {
    private static final List<String> CMDLINE = List.of("/usr/lib/jvm/jdk/bin/java", "-XX:+UseSerialGC",
            "-XX:AOTCache=/home/u/j/target/jslirp-25.aot", "-Xms4m", "-jar", "/home/u/j/target/jslirp.jar",
            "attach", "--enable-sandbox", "-jar", "1234", "tap0");

    private static RootLayout layout(String aot) {
        return RootLayout.of(new RootLayout.Host("/usr/lib/jvm/jdk", "/home/u/j/target/jslirp.jar", aot, Map.of(), Map.of(), List.of()));
    }

    @Test
    void sameOptionsAndArgumentsWithTheNewRootsPaths() {
        Handoff h = new Handoff(Map.of("tap", new int[] {5, 6}));
        Relaunch r = Relaunch.of(CMDLINE, layout("/home/u/j/target/jslirp-25.aot"), h, Map.of("HOME", "/home/u", "LD_LIBRARY_PATH", "/x"));
        assertThat(r.argv()).containsExactly("/usr/lib/jvm/jdk/bin/java", "-XX:+UseSerialGC", "-XX:AOTCache=/jslirp/jslirp.aot", "-Xms4m",
                "-jar", "/jslirp/jslirp.jar", "attach", "--enable-sandbox", "-jar", "1234", "tap0");
        assertThat(r.env()).containsExactly("HOME=/home/u", "JSLIRP_SANDBOXED=tap=5,6", "LD_LIBRARY_PATH=/usr/lib/jvm/jdk/lib");
    }

    @Test
    void anAotCacheNotBoundIsDropped() {
        Relaunch r = Relaunch.of(CMDLINE, layout(null), new Handoff(Map.of()), Map.of());
        assertThat(r.argv()).noneMatch(a -> a.startsWith("-XX:AOTCache"));
        assertThat(Relaunch.aotCache(CMDLINE)).isEqualTo("/home/u/j/target/jslirp-25.aot");
        assertThat(Relaunch.jar(CMDLINE)).isEqualTo("/home/u/j/target/jslirp.jar");
    }

    @Test
    void aJvmNotStartedWithDashJarIsRefused() {
        assertThatThrownBy(() -> Relaunch.jar(List.of("java", "-cp", "x", "io.jslirp.cli.Main", "attach")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--enable-sandbox needs jslirp's launcher");
    }
}
