package io.jslirp.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

class ManPageTest {
    @Command(name = "tool", mixinStandardHelpOptions = true, subcommands = {Tool.Sub.class, Tool.Secret.class},
            description = {"Do a thing (carefully: twice). Then more.", "A second line."},
            footer = {"", "Examples:", "  tool -m 9000 --path C:\\dir  # backslash", "  .hidden-looking line", "",
                    "Some closing words", "over two lines.", "", "Notes:", "  kept"})
    static final class Tool implements Runnable {
        @Option(names = {"-m", "--mtu"}, paramLabel = "MTU", defaultValue = "1500", description = "the MTU (default: ${DEFAULT-VALUE})")
        int mtu;

        @Option(names = "--path", paramLabel = "DIR", defaultValue = "/tmp", description = "where to look")
        String path;

        @Option(names = "--quiet", description = "say less")
        boolean quiet;

        @Option(names = "--internal", hidden = true, description = "not for users")
        boolean internal;

        @Option(names = "--ratio", paramLabel = "N", description = "100%% of it%nand then some")
        int ratio;

        @Parameters(paramLabel = "FILE", arity = "0..*", description = "files to read")
        List<String> files;

        @Override
        public void run() {}

        @Command(name = "sub", description = "The sub-command.")
        static final class Sub implements Runnable {
            @Option(names = "-x", description = "an x")
            boolean x;

            @Override
            public void run() {}
        }

        @Command(name = "secret", hidden = true, description = "Hidden.")
        static final class Secret implements Runnable {
            @Override
            public void run() {}
        }
    }

    private static List<ManPage.Page> pages() {
        return ManPage.pages(new CommandLine(new Tool()).getCommandSpec(), "tool 1.0",
                List.of(new ManPage.Section("FILES", List.of("  /etc/tool.conf", "      its configuration"))), List.of("other(1)"));
    }

    @Test
    void onePagePerVisibleCommandNamedAsGitNamesThem() {
        assertThat(pages()).extracting(ManPage.Page::fileName).containsExactly("tool.1", "tool-sub.1");
    }

    @Test
    void headerNameSynopsisAndDescription() {
        String page = pages().get(0).text();
        assertThat(page).contains(".TH \"TOOL\" 1 \"\" \"tool 1.0\" \"User Commands\"\n");
        // the first clause outside parentheses, without its period
        assertThat(page).contains(".SH \"NAME\"\n.PP\ntool \\- Do a thing (carefully: twice)\n");
        assertThat(page).contains(".SH \"SYNOPSIS\"\n.HP 4\n\\fBtool\\fR \\%[\\-hV] \\%[\\-\\-quiet] \\%[\\-m=MTU] \\%[\\-\\-path=DIR]");
        assertThat(page).contains("\\%[FILE...] \\%[COMMAND]\n");
        assertThat(page).contains(".SH \"DESCRIPTION\"\n.PP\nDo a thing (carefully: twice). Then more. A second line.\n");
    }

    @Test
    void optionsWithLabelsDescriptionsAndDefaultsHiddenOnesLeftOut() {
        String page = pages().get(0).text();
        assertThat(page).contains(".TP\n\\%\\fB\\-m\\fR, \\fB\\-\\-mtu\\fR=\\fIMTU\\fR\nthe MTU (default: 1500)\n");
        assertThat(page).as("a default the description does not name is added")
                .contains(".TP\n\\%\\fB\\-\\-path\\fR=\\fIDIR\\fR\nwhere to look (default: /tmp)\n");
        assertThat(page).contains(".TP\n\\%\\fB\\-\\-quiet\\fR\nsay less\n");
        assertThat(page).as("%%n and %%%% as --help renders them").contains("\n100% of it and then some\n");
        assertThat(page).doesNotContain("internal").doesNotContain("not for users");
        assertThat(page).contains(".SH \"ARGUMENTS\"\n.TP\n\\%\\fIFILE\\fR...\nfiles to read\n");
    }

    @Test
    void subcommandsFooterSectionsAndSeeAlso() {
        String page = pages().get(0).text();
        assertThat(page).contains(".SH \"COMMANDS\"\n.TP\n\\%\\fBsub\\fR\nThe sub\\-command. See tool\\-sub(1).\n");
        assertThat(page).doesNotContain("secret");
        assertThat(page).contains(".SH \"EXAMPLES\"\n.PP\n.RS 4\n.nf\ntool \\-m 9000 \\-\\-path C:\\edir  # backslash\n"
                + "\\&.hidden\\-looking line\n.fi\n.RE\n.PP\nSome closing words over two lines.\n");
        assertThat(page).contains(".SH \"NOTES\"\n.PP\n.RS 4\n.nf\nkept\n.fi\n.RE\n");
        assertThat(page).contains(".SH \"FILES\"\n.PP\n.RS 4\n.nf\n/etc/tool.conf\n    its configuration\n.fi\n.RE\n");
        assertThat(page).endsWith(".SH \"SEE ALSO\"\n.PP\ntool\\-sub(1), other(1)\n");
        String sub = pages().get(1).text();
        assertThat(sub).contains(".TH \"TOOL\\-SUB\" 1").contains("tool\\-sub \\- The sub\\-command\n")
                .contains("\\fBtool sub\\fR \\%[\\-x]\n").endsWith(".SH \"SEE ALSO\"\n.PP\ntool(1)\n");
    }

    @Test
    void aPreformattedPageKeepsItsTextWithTabsExpanded() {
        ManPage.Page p = ManPage.preformatted("tool-legacy", "the old interface", List.of("/opt/tool/legacy [OPTION]..."),
                List.of("It does what it did."), "OPTIONS", "Usage: legacy\n  -q\tquiet\n", "tool 1.0", List.of("tool(1)"));
        assertThat(p.fileName()).isEqualTo("tool-legacy.1");
        assertThat(p.text()).contains("\\fB/opt/tool/legacy\\fR \\%[OPTION]...\n")
                .contains(".SH \"OPTIONS\"\n.PP\n.RS 4\n.nf\nUsage: legacy\n  \\-q    quiet\n.fi\n.RE\n");
    }

    @Test
    void escapesWhatTroffWouldReadAsMarkup() {
        assertThat(ManPage.Troff.escape("a\\b-c")).isEqualTo("a\\eb\\-c");
        assertThat(ManPage.Troff.escape("µ")).isEqualTo("\\[u00B5]");
        assertThat(ManPage.summary(List.of("Run COMMAND (default: $SHELL) in a namespace; exit with its status."))).isEqualTo("Run COMMAND (default: $SHELL) in a namespace");
    }
}
