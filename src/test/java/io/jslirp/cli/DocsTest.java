package io.jslirp.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jslirp.install.Installer;
import io.jslirp.install.ManPage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/** jslirp's own manual pages and completion, as jslirp install makes them. */
class DocsTest {
    @TempDir
    Path tmp;

    private static List<CommandSpec> allCommands(CommandSpec spec) {
        List<CommandSpec> all = new ArrayList<>(List.of(spec));
        for (CommandLine sub : spec.subcommands().values()) all.addAll(allCommands(sub.getCommandSpec()));
        return all;
    }

    private static List<ManPage.Page> pages() {
        return ManPage.pages(Main.commandLine(null).getCommandSpec(), "jslirp test", List.of(), List.of());
    }

    @Test
    void everyCommandHasAPageNamingEachOfItsVisibleOptions() {
        List<ManPage.Page> pages = pages();
        List<CommandSpec> commands = allCommands(Main.commandLine(null).getCommandSpec());
        assertThat(pages).hasSameSizeAs(commands);
        for (CommandSpec c : commands) {
            String file = c.qualifiedName("-") + ".1";
            String page = pages.stream().filter(p -> p.fileName().equals(file)).findFirst().orElseThrow().text();
            for (OptionSpec o : c.options()) {
                String marked = "\\fB" + o.longestName().replace("-", "\\-") + "\\fR";
                if (o.hidden()) assertThat(page).as("%s in %s", o.longestName(), file).doesNotContain(marked);
                else assertThat(page).as("%s in %s", o.longestName(), file).contains(marked);
            }
        }
        assertThat(pages).extracting(ManPage.Page::fileName).contains("jslirp.1", "jslirp-run.1", "jslirp-attach.1",
                "jslirp-forward-add.1", "jslirp-install.1");
    }

    /** groff reads each page without a warning (all of its warnings on), and it renders. */
    @Test
    void groffRendersEveryPageWithoutWarnings() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/groff")), "groff not installed");
        List<ManPage.Page> pages = InstallCommand.manPages(new Installer.Layout(Path.of("/usr/local")));
        assertThat(pages).extracting(ManPage.Page::fileName).contains("jslirp.1", "jslirp-pasta.1");
        for (ManPage.Page p : pages) {
            Path f = tmp.resolve(p.fileName());
            Files.writeString(f, p.text());
            Process groff = new ProcessBuilder("groff", "-man", "-Tutf8", "-ww", "-rLL=80n", f.toString())
                    .redirectOutput(tmp.resolve("out").toFile()).redirectError(tmp.resolve("err").toFile()).start();
            assertThat(groff.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(groff.exitValue()).isZero();
            assertThat(Files.readString(tmp.resolve("err"))).as(p.fileName()).isEmpty();
            // overstrikes (bold, underline) out; groff 1.23 (Debian 13) marks them with SGR escapes
            // instead, and writes - and \- as U+2010 and U+2212 in UTF-8
            String text = Files.readString(tmp.resolve("out")).replaceAll(".\u0008", "").replaceAll("\u001b\\[[0-9;]*m", "").replaceAll("[\u2010\u2212]", "-");
            assertThat(text).as(p.fileName()).contains("NAME\n       " + p.fileName().replace(".1", "") + " - ").contains("SYNOPSIS");
        }
    }

    @Test
    void theCompletionScriptCompletesCommandsAndOptions() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/bin/bash")), "no bash");
        Path script = tmp.resolve("jslirp");
        Files.writeString(script, AutoComplete.bash("jslirp", Main.commandLine(null)));
        String out = bash(script, "COMP_WORDS=(jslirp ''); COMP_CWORD=1; COMP_LINE='jslirp '; _complete_jslirp; echo \"${COMPREPLY[*]}\";"
                + " COMP_WORDS=(jslirp run --mt); COMP_CWORD=2; COMP_LINE='jslirp run --mt'; _complete_jslirp; echo \"${COMPREPLY[*]}\"");
        assertThat(out.lines().toList()).containsExactly("attach run qemu pasta forward status seccomp-profile install uninstall", "--mtu");
    }

    private String bash(Path script, String commands) throws Exception {
        Process p = new ProcessBuilder("bash", "-c", "source \"$1\" && " + commands, "bash", script.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    @Test
    void theLauncherSourcesOnlyWhatAnInstallationHas() throws Exception {
        Path home = Path.of(System.getProperty("user.dir"));
        String launcher = Files.readString(home.resolve("jslirp"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\$here/(scripts/[A-Za-z0-9_.-]+)").matcher(launcher);
        List<String> used = new ArrayList<>();
        while (m.find()) used.add(m.group(1));
        assertThat(used).isNotEmpty();
        assertThat(Installer.LAUNCHER_FILES).containsAll(used);
        for (String peer : List.of("bin/pasta", "bin/slirp4netns")) {
            assertThat(Installer.LAUNCHER_FILES).contains(peer);
            assertThat(Files.readString(home.resolve(peer))).contains("exec \"$here/jslirp\"");
        }
    }
}
