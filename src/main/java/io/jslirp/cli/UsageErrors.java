package io.jslirp.cli;

import picocli.CommandLine;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

import java.util.List;

/**
 * A command-line error in the user's terms, as one line without a prefix (the caller adds
 * {@code jslirp: }). An option no command knows is named in getopt's words, which slirp4netns,
 * pasta and unshare all print ("unrecognized option '--x'"), even where picocli would first
 * complain of a missing operand; a word a command with subcommands (jslirp, jslirp forward) does not know is an unknown command;
 * picocli's other messages keep their text, without its "Error: " prefix and with a lower-case
 * first letter, as jslirp's own messages are written.
 */
final class UsageErrors {
    private UsageErrors() {}

    /** What is wrong with the command line, in one line: an argument quoted in it has its line breaks made spaces. */
    static String describe(ParameterException e) {
        return oneLine(wrongArgument(e));
    }

    /**
     * message as one line: every control character (line feed, carriage return, form feed, ...) and
     * Unicode's line and paragraph separators made a space, so that an argument quoted in a message
     * cannot break it into lines of its own.
     */
    static String oneLine(String message) {
        StringBuilder b = null;
        for (int i = 0; i < message.length(); i++) {
            char c = message.charAt(i);
            if (!Character.isISOControl(c) && c != '\u2028' && c != '\u2029') continue;
            if (b == null) b = new StringBuilder(message);
            b.setCharAt(i, ' ');
        }
        return b == null ? message : b.toString();
    }

    private static String wrongArgument(ParameterException e) {
        CommandLine c = e.getCommandLine();
        List<String> unmatched = e instanceof UnmatchedArgumentException u ? u.getUnmatched() : c.getUnmatchedArguments();
        String option = unmatched.stream().filter(UsageErrors::looksLikeOption).findFirst().orElse(null);
        if (option != null && (e instanceof UnmatchedArgumentException || e instanceof MissingParameterException)) {
            String m = "unrecognized option '" + option + "'";
            if (c.getCommand() instanceof RunCommand) {
                m += "; jslirp run's own options come first, then the command with its options: jslirp run [OPTION]... [--] COMMAND [ARG]...";
            }
            return m;
        }
        if (e instanceof UnmatchedArgumentException && !unmatched.isEmpty()) {
            if (!c.getSubcommands().isEmpty()) {
                return "unknown command '" + unmatched.getFirst() + "' (commands: " + String.join(", ", c.getSubcommands().keySet()) + ")";
            }
            return "unexpected argument '" + unmatched.getFirst() + "'";
        }
        return plain(e.getMessage());
    }

    /** picocli's message as jslirp words its own: no "Error: ", lower case first, one line. */
    static String plain(String message) {
        String m = message == null ? "invalid command line" : message.strip();
        if (m.startsWith("Error: ")) m = m.substring("Error: ".length());
        if (!m.isEmpty() && Character.isUpperCase(m.charAt(0)) && (m.length() == 1 || !Character.isUpperCase(m.charAt(1)))) {
            m = Character.toLowerCase(m.charAt(0)) + m.substring(1);
        }
        return m.replace('\n', ' ');
    }

    private static boolean looksLikeOption(String arg) {
        return arg.length() > 1 && arg.startsWith("-") && !arg.equals("--");
    }
}
