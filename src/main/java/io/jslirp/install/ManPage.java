package io.jslirp.install;

import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Manual pages (man(7) macros, section 1) made from picocli's model of a command: one page per
 * command and subcommand, named as git names its pages ({@code jslirp-forward-add.1} for {@code
 * jslirp forward add}). What each page holds comes from the command's spec:
 * <ul>
 *   <li>NAME: the qualified name and the description's first clause;</li>
 *   <li>SYNOPSIS: picocli's own synopsis (the one --help prints), in fill mode;</li>
 *   <li>DESCRIPTION: the description;</li>
 *   <li>OPTIONS and ARGUMENTS: every option and positional parameter that is not hidden, with its
 *       names, parameter label and description (variables such as ${DEFAULT-VALUE} rendered as
 *       --help renders them), and the default value where the description does not name one;</li>
 *   <li>COMMANDS: the subcommands, each with its page;</li>
 *   <li>the footer: a line such as "Examples:" begins a section of its own (EXAMPLES), indented
 *       lines are kept as they are (examples), other lines make paragraphs;</li>
 *   <li>sections the caller adds, then SEE ALSO: the parent's and the subcommands' pages.</li>
 * </ul>
 */
public final class ManPage {
    private ManPage() {}

    /** A page: its file name (e.g. {@code jslirp-run.1}) and its text. */
    public record Page(String fileName, String text) {}

    /** A section of the caller's: a title (e.g. FILES) and lines, read as a footer's are. */
    public record Section(String title, List<String> lines) {}

    /**
     * The pages of root and of its subcommands, recursively; source names the program and version
     * (the page's footer, e.g. "jslirp 0.1.0"). extra: sections for root's page; extraSeeAlso:
     * further pages root's SEE ALSO names (e.g. "jslirp-pasta(1)").
     */
    public static List<Page> pages(CommandSpec root, String source, List<Section> extra, List<String> extraSeeAlso) {
        List<Page> pages = new ArrayList<>();
        add(pages, root, source, extra, extraSeeAlso);
        return pages;
    }

    private static void add(List<Page> pages, CommandSpec spec, String source, List<Section> extra, List<String> extraSeeAlso) {
        pages.add(new Page(pageName(spec) + ".1", page(spec, source, extra, extraSeeAlso)));
        for (CommandSpec sub : subcommands(spec)) add(pages, sub, source, List.of(), List.of());
    }

    /** The page's name: the qualified name with hyphens ("jslirp-forward-add"). */
    static String pageName(CommandSpec spec) {
        return spec.qualifiedName("-");
    }

    /** The visible subcommands, each once (picocli maps every alias too). */
    static List<CommandSpec> subcommands(CommandSpec spec) {
        Map<CommandSpec, Boolean> seen = new IdentityHashMap<>();
        List<CommandSpec> subs = new ArrayList<>();
        for (CommandLine sub : spec.subcommands().values()) {
            CommandSpec s = sub.getCommandSpec();
            if (!s.usageMessage().hidden() && seen.put(s, Boolean.TRUE) == null) subs.add(s);
        }
        return subs;
    }

    /** One command's page. */
    static String page(CommandSpec spec, String source, List<Section> extra, List<String> extraSeeAlso) {
        Troff t = new Troff();
        String name = pageName(spec);
        List<String> description = formatted(spec.usageMessage().description());
        t.header(name, source);
        t.section("NAME");
        t.text(name + " - " + summary(description));
        t.section("SYNOPSIS");
        t.synopsis(spec.qualifiedName(), synopsis(spec));
        if (!description.isEmpty()) {
            t.section("DESCRIPTION");
            t.text(String.join(" ", description));
        }
        List<OptionSpec> options = spec.options().stream().filter(o -> !o.hidden()).toList();
        if (spec.usageMessage().sortOptions()) {
            options = options.stream().sorted(CommandLine.Help.createShortOptionArityAndNameComparator()).toList();
        }
        if (!options.isEmpty()) {
            t.section("OPTIONS");
            for (OptionSpec o : options) t.item(optionTag(o), argDescription(o));
        }
        List<PositionalParamSpec> params = spec.positionalParameters().stream().filter(p -> !p.hidden()).toList();
        if (!params.isEmpty()) {
            t.section("ARGUMENTS");
            for (PositionalParamSpec p : params) t.item(Troff.italic(p.paramLabel()) + (p.arity().max() > 1 ? "..." : ""), argDescription(p));
        }
        List<CommandSpec> subs = subcommands(spec);
        if (!subs.isEmpty()) {
            t.section("COMMANDS");
            for (CommandSpec s : subs) {
                t.item(Troff.bold(s.name()), summary(formatted(s.usageMessage().description())) + ". See " + pageName(s) + "(1).");
            }
        }
        lines(t, formatted(spec.usageMessage().footer()), null);
        for (Section s : extra) lines(t, s.lines(), s.title());
        List<String> seeAlso = new ArrayList<>();
        if (spec.parent() != null) seeAlso.add(pageName(spec.parent()) + "(1)");
        for (CommandSpec s : subs) seeAlso.add(pageName(s) + "(1)");
        seeAlso.addAll(extraSeeAlso);
        if (!seeAlso.isEmpty()) {
            t.section("SEE ALSO");
            t.text(String.join(", ", seeAlso));
        }
        return t.toString();
    }

    /**
     * A page for a command whose help is text of its own (jslirp's pasta, which has pasta's):
     * NAME, SYNOPSIS lines, DESCRIPTION paragraphs, then the help text kept as it is.
     */
    public static Page preformatted(String name, String summary, List<String> synopsis, List<String> description, String helpTitle,
            String help, String source, List<String> seeAlso) {
        Troff t = new Troff();
        t.header(name, source);
        t.section("NAME");
        t.text(name + " - " + summary);
        t.section("SYNOPSIS");
        for (String s : synopsis) {
            int space = s.indexOf(' ');
            t.synopsis(space < 0 ? s : s.substring(0, space), space < 0 ? "" : s.substring(space + 1));
        }
        t.section("DESCRIPTION");
        for (String p : description) t.text(p);
        t.section(helpTitle);
        t.verbatim(help.lines().map(ManPage::expandTabs).toList());
        if (!seeAlso.isEmpty()) {
            t.section("SEE ALSO");
            t.text(String.join(", ", seeAlso));
        }
        return new Page(name + ".1", t.toString());
    }

    /** The synopsis --help shows, after the command's name, on one line. */
    static String synopsis(CommandSpec spec) {
        CommandLine.Help help = new CommandLine.Help(spec, CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
        String s = help.synopsis(0).strip().replaceAll("\\s*\\R\\s*", " ");
        String name = spec.qualifiedName();
        return s.startsWith(name) ? s.substring(name.length()).strip() : s;
    }

    /** The first clause of a description (up to ". ", ": " or "; " outside parentheses), without its period. */
    static String summary(List<String> description) {
        if (description.isEmpty()) return "";
        String first = description.get(0).strip();
        int depth = 0;
        for (int i = 0; i < first.length() - 1; i++) {
            char c = first.charAt(i);
            if (c == '(') depth++;
            else if (c == ')') depth = Math.max(0, depth - 1);
            else if (depth == 0 && (c == '.' || c == ':' || c == ';') && first.charAt(i + 1) == ' ') return first.substring(0, i);
        }
        return first.endsWith(".") ? first.substring(0, first.length() - 1) : first;
    }

    /** "-m, --mtu=MTU": the names bold, the parameter label (for an option that takes one) italic. */
    static String optionTag(OptionSpec o) {
        List<String> names = new ArrayList<>();
        for (String n : o.names()) names.add(Troff.bold(n));
        String tag = String.join(", ", names);
        if (o.arity().max() > 0) tag += "=" + Troff.italic(o.paramLabel());
        return tag;
    }

    /** The description as --help renders it, and the default value where it does not say one. */
    static String argDescription(ArgSpec a) {
        String d = String.join(" ", a.description()).replaceAll("\\s*\\R\\s*", " ").strip();
        String def = a.defaultValue();
        if (def != null && !a.isMultiValue() && !d.toLowerCase(java.util.Locale.ROOT).contains("default")) {
            d += (d.isEmpty() ? "" : " ") + "(default: " + def + ")";
        }
        return d;
    }

    /** Description or footer lines as --help shows them: %n a line break, %% a percent sign. */
    static List<String> formatted(String[] lines) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            String s;
            try {
                s = String.format(line);
            } catch (java.util.IllegalFormatException e) {
                s = line;
            }
            out.addAll(s.lines().toList());
            if (s.isEmpty()) out.add("");
        }
        return out;
    }

    /**
     * Footer-like lines into sections: a line "Examples:" (unindented, ending with a colon) begins
     * a section (EXAMPLES; any other such line a section of its name in capitals), indented lines
     * are kept as they are, other lines are joined into paragraphs, an empty line ends one.
     * title: the section the lines begin in (null: none until a heading line).
     */
    private static void lines(Troff t, List<String> lines, String title) {
        if (title != null) t.section(title);
        List<String> paragraph = new ArrayList<>(), verbatim = new ArrayList<>();
        for (String line : lines) {
            boolean indented = !line.isBlank() && Character.isWhitespace(line.charAt(0));
            if (!indented && !verbatim.isEmpty()) {
                t.verbatim(unindent(verbatim));
                verbatim.clear();
            }
            if (indented || line.isBlank()) {
                if (!paragraph.isEmpty()) t.text(String.join(" ", paragraph));
                paragraph.clear();
                if (indented) verbatim.add(line);
            } else if (line.endsWith(":") && paragraph.isEmpty() && !line.contains(" ")) {
                String heading = line.substring(0, line.length() - 1).toUpperCase(java.util.Locale.ROOT);
                t.section(heading.equals("EXAMPLE") ? "EXAMPLES" : heading);
            } else {
                paragraph.add(line.strip());
            }
        }
        if (!verbatim.isEmpty()) t.verbatim(unindent(verbatim));
        if (!paragraph.isEmpty()) t.text(String.join(" ", paragraph));
    }

    /** The lines without the indentation they all share. */
    private static List<String> unindent(List<String> lines) {
        int common = Integer.MAX_VALUE;
        for (String l : lines) {
            if (l.isBlank()) continue;
            int i = 0;
            while (i < l.length() && l.charAt(i) == ' ') i++;
            common = Math.min(common, i);
        }
        int cut = common == Integer.MAX_VALUE ? 0 : common;
        return lines.stream().map(l -> l.length() >= cut ? l.substring(cut) : "").toList();
    }

    private static String expandTabs(String line) {
        StringBuilder b = new StringBuilder();
        for (char c : line.toCharArray()) {
            if (c == '\t') {
                do b.append(' '); while (b.length() % 8 != 0);
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /** The page being written: man(7) requests, text escaped. */
    static final class Troff {
        private final StringBuilder out = new StringBuilder();

        void header(String name, String source) {
            out.append(".\\\" Generated from jslirp's command line model (io.jslirp.install.ManPage).\n");
            out.append(".TH ").append(quote(name.toUpperCase(java.util.Locale.ROOT))).append(" 1 \"\" ").append(quote(source))
                    .append(" \"User Commands\"\n");
            // Command lines and paths: no hyphenation, no stretched spaces.
            out.append(".nh\n.ad l\n");
        }

        void section(String title) {
            out.append(".SH ").append(quote(title)).append('\n');
        }

        /** A paragraph, filled. */
        void text(String s) {
            out.append(".PP\n").append(line(escape(s))).append('\n');
        }

        /** The command's name in bold, then its synopsis, filled and indented as a hanging paragraph. */
        void synopsis(String name, String rest) {
            StringBuilder words = new StringBuilder(bold(name));
            // \% before each word: a line breaks between words only, not at a word's hyphens
            for (String w : rest.strip().split("\\s+")) if (!w.isEmpty()) words.append(" \\%").append(escape(w));
            out.append(".HP 4\n").append(line(words.toString())).append('\n');
        }

        /** A tagged paragraph: tag (already marked up) and a description. */
        void item(String tag, String description) {
            out.append(".TP\n").append(line("\\%" + tag)).append('\n');
            if (!description.isEmpty()) out.append(line(escape(description))).append('\n');
        }

        /** Lines kept as they are (examples), indented. */
        void verbatim(List<String> lines) {
            out.append(".PP\n.RS 4\n.nf\n");
            for (String l : lines) out.append(line(escape(l))).append('\n');
            out.append(".fi\n.RE\n");
        }

        static String bold(String s) {
            return "\\fB" + escape(s) + "\\fR";
        }

        static String italic(String s) {
            return "\\fI" + escape(s) + "\\fR";
        }

        /** Text for troff: backslashes and hyphens (minus signs, as typed) escaped. */
        static String escape(String s) {
            StringBuilder b = new StringBuilder(s.length() + 8);
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '\\' -> b.append("\\e");
                    case '-' -> b.append("\\-");
                    // groff's input is ASCII here (man -l reads it so); anything else by its code point
                    default -> {
                        if (c < 128) b.append(c);
                        else b.append("\\[u").append(String.format("%04X", (int) c)).append(']');
                    }
                }
            }
            return b.toString();
        }

        /** A text line that troff does not take for a request: a leading dot or quote protected. */
        private static String line(String s) {
            return s.startsWith(".") || s.startsWith("'") ? "\\&" + s : s;
        }

        private static String quote(String s) {
            return "\"" + escape(s).replace("\"", "\\(dq") + "\"";
        }

        @Override
        public String toString() {
            return out.toString();
        }
    }
}
