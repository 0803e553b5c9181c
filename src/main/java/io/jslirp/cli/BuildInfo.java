package io.jslirp.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * What this jar was built from, as Maven recorded it in {@code io/jslirp/cli/build.properties}: the
 * project's version and the git commit (abbreviated), and whether the working tree had changes.
 * A value Maven did not fill in (a build outside a git checkout, or without resource filtering)
 * reads as "unknown" (the commit) or "dev" (the version).
 */
record BuildInfo(String version, String commit, boolean dirty) {
    /** This jar's. */
    static final BuildInfo CURRENT = read();

    private static BuildInfo read() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("build.properties")) {
            if (in != null) p.load(in);
        } catch (IOException e) {
            // as though there were none
        }
        return of(p.getProperty("version"), p.getProperty("commit"), p.getProperty("dirty"));
    }

    /** From the properties' raw values (null, or an unfilled ${...}, when Maven had none). */
    static BuildInfo of(String version, String commit, String dirty) {
        return new BuildInfo(filled(version) ? version.strip() : "dev", filled(commit) ? commit.strip() : "unknown",
                filled(dirty) && Boolean.parseBoolean(dirty.strip()));
    }

    private static boolean filled(String value) {
        return value != null && !value.isBlank() && !value.contains("${");
    }

    /** The version and the commit, e.g. {@code 0.1.0 (commit 1a2b3c4)} or {@code 0.1.0 (commit 1a2b3c4, dirty)}. */
    String describe() {
        return version + " (commit " + commit + (dirty ? ", dirty" : "") + ")";
    }
}
