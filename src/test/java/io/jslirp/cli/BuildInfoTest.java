package io.jslirp.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BuildInfoTest {
    @Test
    void valuesMavenDidNotFillInReadAsUnknown() {
        assertThat(BuildInfo.of("0.2.0", "1a2b3c4", "false").describe()).isEqualTo("0.2.0 (commit 1a2b3c4)");
        assertThat(BuildInfo.of("0.2.0", "1a2b3c4", "true").describe()).isEqualTo("0.2.0 (commit 1a2b3c4, dirty)");
        assertThat(BuildInfo.of("${project.version}", "${jslirp.commit}", "${jslirp.dirty}").describe()).isEqualTo("dev (commit unknown)");
        assertThat(BuildInfo.of(null, "", null).describe()).isEqualTo("dev (commit unknown)");
    }

    /** The build recorded the checkout's HEAD (this test runs from the build's classes). */
    @Test
    void theBuildRecordsTheVersionAndTheCheckoutsCommit() throws Exception {
        assertThat(BuildInfo.CURRENT.version()).matches("\\d+\\.\\d+\\.\\d+.*");
        Path home = Path.of(System.getProperty("user.dir"));
        assumeTrue(Files.exists(home.resolve(".git")), "not a git checkout");
        Process git = new ProcessBuilder("git", "rev-parse", "--short=7", "HEAD").directory(home.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String head = new String(git.getInputStream().readAllBytes()).strip();
        assertThat(git.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assumeTrue(git.exitValue() == 0, "no git here");
        assertThat(BuildInfo.CURRENT.commit()).isEqualTo(head);
        assertThat(new Main.Version().getVersion()).containsExactly("jslirp " + BuildInfo.CURRENT.describe());
        assertThat(new AttachCommand.Version().getVersion()[0])
                .startsWith("slirp4netns version 1.2.0 (compatible: jslirp " + BuildInfo.CURRENT.version() + ", commit " + head);
        assertThat(new AttachCommand.Version().getVersion()[1]).isEqualTo("commit: " + head);
    }
}
