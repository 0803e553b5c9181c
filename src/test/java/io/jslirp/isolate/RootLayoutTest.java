package io.jslirp.isolate;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.isolate.RootLayout.Step;
import io.jslirp.isolate.RootLayout.Use;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class RootLayoutTest {
    private static final Map<String, String> MERGED_USR = Map.of("bin", "usr/bin", "lib", "usr/lib", "lib64", "usr/lib64", "sbin", "usr/sbin");

    private static RootLayout layout(String javaHome, String aot, Map<String, String> entries, Map<String, Boolean> exposed) {
        return RootLayout.of(new RootLayout.Host(javaHome, "/home/u/jslirp/target/jslirp.jar", aot, entries, exposed, List.of()));
    }

    @Test
    void holdsEtcRunUsrTheDevicesAndTheAppNothingElse() {
        RootLayout l = layout("/usr/lib/jvm/jdk-25", "/home/u/jslirp/target/jslirp-25.aot", MERGED_USR, Map.of());
        assertThat(l.steps()).contains(new Step.Bind("/etc", "/etc", true, Use.DATA), new Step.Bind("/run", "/run", true, Use.DATA),
                new Step.Bind("/usr", "/usr", true, Use.PROGRAM), new Step.Link("/lib64", "usr/lib64"),
                new Step.Bind("/dev/urandom", "/dev/urandom", false, Use.DEVICE),
                new Step.Bind("/home/u/jslirp/target/jslirp.jar", "/jslirp/jslirp.jar", false, Use.DATA),
                new Step.Bind("/home/u/jslirp/target/jslirp-25.aot", "/jslirp/jslirp.aot", false, Use.DATA));
        assertThat(paths(l)).as("nothing of the host's home, /root, /var or /tmp").noneMatch(p -> p.startsWith("/home") || p.startsWith("/root")
                || p.startsWith("/var") || p.startsWith("/tmp") || p.startsWith("/proc"));
        // a JDK under /usr runs from there
        assertThat(l.java()).isEqualTo("/usr/lib/jvm/jdk-25/bin/java");
        assertThat(l.javaLibraries()).isEqualTo("/usr/lib/jvm/jdk-25/lib");
        assertThat(l.jar()).isEqualTo("/jslirp/jslirp.jar");
        assertThat(l.aotCache()).isEqualTo("/jslirp/jslirp.aot");
    }

    @Test
    void aJdkOutsideUsrIsBoundUnderTheApp() {
        RootLayout l = layout("/home/u/.sdkman/java/25", null, MERGED_USR, Map.of());
        assertThat(l.steps()).contains(new Step.Bind("/home/u/.sdkman/java/25", "/jslirp/jdk", true, Use.PROGRAM));
        assertThat(l.java()).isEqualTo("/jslirp/jdk/bin/java");
        assertThat(l.aotCache()).isNull();
        assertThat(paths(l)).noneMatch(p -> p.startsWith("/home"));
    }

    @Test
    void everyTargetsParentIsMadeBeforeIt() {
        Map<String, Boolean> exposed = new LinkedHashMap<>();
        exposed.put("/srv/tftp/boot", true);
        exposed.put("/opt/dns/resolv.conf", false);
        exposed.put("/etc/other-resolv.conf", false); // under /etc: bound already
        Map<String, String> entries = Map.of("lib", "", "bin", "usr/bin");
        RootLayout l = layout("/opt/jdk", null, entries, exposed);
        List<String> made = new java.util.ArrayList<>(List.of("/"));
        for (Step s : l.steps()) {
            String path = switch (s) {
                case Step.Directory d -> d.path();
                case Step.Link k -> k.path();
                case Step.Bind b -> b.path();
            };
            assertThat(made).as("the parent of %s", s).contains(path.substring(0, Math.max(1, path.lastIndexOf('/'))));
            if (!(s instanceof Step.Bind b) || b.directory()) made.add(path);
        }
        assertThat(l.steps()).contains(new Step.Bind("/lib", "/lib", true, Use.PROGRAM), new Step.Link("/bin", "usr/bin"),
                new Step.Bind("/srv/tftp/boot", "/srv/tftp/boot", true, Use.DATA),
                new Step.Bind("/opt/dns/resolv.conf", "/opt/dns/resolv.conf", false, Use.DATA));
        assertThat(l.steps()).filteredOn(s -> s instanceof Step.Bind b && b.source().startsWith("/etc/")).isEmpty();
        assertThat(l.steps()).last().isEqualTo(new Step.Directory("/old"));
    }

    @Test
    void aCaptureFileIsTheOneThingWritable() {
        RootLayout l = RootLayout.of(new RootLayout.Host("/usr/lib/jvm/jdk", "/opt/j/jslirp.jar", null, Map.of(), Map.of(),
                List.of("/home/u/captures/x.pcap")));
        assertThat(l.steps()).contains(new Step.Directory("/home/u/captures"),
                new Step.Bind("/home/u/captures/x.pcap", "/home/u/captures/x.pcap", false, Use.WRITABLE));
        assertThat(l.steps()).filteredOn(s -> s instanceof Step.Bind b && b.use() == Use.WRITABLE).hasSize(1);
    }

    @Test
    void inPlaceEverythingStaysAtItsPathAndOnlyUsrIsBoundWhole() {
        RootLayout l = RootLayout.inPlace(new RootLayout.Host("/opt/jdk-25", "/home/u/jslirp/target/jslirp.jar",
                "/home/u/.cache/jslirp/j-25.aot", MERGED_USR, Map.of(), List.of()));
        assertThat(l.steps()).contains(new Step.Bind("/usr", "/usr", true, Use.PROGRAM), new Step.Link("/lib64", "usr/lib64"),
                new Step.Bind("/dev/null", "/dev/null", false, Use.DEVICE),
                new Step.Bind("/opt/jdk-25", "/opt/jdk-25", true, Use.PROGRAM),
                new Step.Bind("/home/u/jslirp/target/jslirp.jar", "/home/u/jslirp/target/jslirp.jar", false, Use.DATA),
                new Step.Bind("/home/u/.cache/jslirp/j-25.aot", "/home/u/.cache/jslirp/j-25.aot", false, Use.DATA),
                new Step.Directory("/home/u/jslirp/target"), new Step.Directory("/home/u/.cache/jslirp"));
        assertThat(l.steps()).as("no /etc, no /run, nothing at /jslirp")
                .noneMatch(s -> s instanceof Step.Bind b && (b.path().startsWith("/etc") || b.path().startsWith("/run") || b.path().startsWith("/jslirp")));
        assertThat(paths(l)).noneMatch(p -> p.startsWith("/jslirp"));
        List<String> bound = l.steps().stream().filter(s -> s instanceof Step.Bind).map(s -> ((Step.Bind) s).source()).toList();
        assertThat(bound).as("what of the host is reachable").containsExactlyInAnyOrder("/usr", "/dev/null", "/dev/zero", "/dev/random",
                "/dev/urandom", "/opt/jdk-25", "/home/u/jslirp/target/jslirp.jar", "/home/u/.cache/jslirp/j-25.aot");
        assertThat(l.java()).isEqualTo("/opt/jdk-25/bin/java");
        assertThat(l.jar()).isEqualTo("/home/u/jslirp/target/jslirp.jar");
        assertThat(l.aotCache()).isEqualTo("/home/u/.cache/jslirp/j-25.aot");
        // a JDK under /usr is bound with it
        RootLayout usr = RootLayout.inPlace(new RootLayout.Host("/usr/lib/jvm/jdk-25", "/opt/j/jslirp.jar", null, MERGED_USR, Map.of(), List.of()));
        assertThat(usr.steps()).noneMatch(s -> s instanceof Step.Bind b && b.source().startsWith("/usr/lib/jvm"));
        assertThat(usr.aotCache()).isNull();
    }

    private static List<String> paths(RootLayout l) {
        return l.steps().stream().map(s -> switch (s) {
            case Step.Directory d -> d.path();
            case Step.Link k -> k.path();
            case Step.Bind b -> b.path();
        }).toList();
    }
}
