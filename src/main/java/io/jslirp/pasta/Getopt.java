package io.jslirp.pasta;

import java.util.List;

/**
 * GNU getopt_long as pasta calls it, so that a command line means to jslirp what it means to pasta
 * and a bad one gets glibc's words: short options from an optstring (clusters "-fq", "-tVALUE" or
 * "-t VALUE"), long options from a table ("--mtu=1500" or "--mtu 1500", any unambiguous
 * abbreviation), "--" ending the options, and, with the optstring's leading '+' (REQUIRE_ORDER),
 * no options after the first operand: "pasta --config-net ip -6 route" runs "ip -6 route".
 * Call {@link #next} until it returns null; then {@link #firstOperand} is where the operands begin.
 */
final class Getopt {
    /**
     * A long option. Two table entries with the same key are one option to getopt (it compares
     * has_arg, flag and val), so an abbreviation matching only those is not ambiguous.
     */
    record LongOption(String name, boolean hasArgument, String key) {}

    /**
     * What getopt returned: the option's key (a short option's letter, or a long option's key) and
     * its argument (null if it takes none); or, for an error, key "?" and glibc's message, which
     * getopt would have printed before returning '?'.
     */
    record Found(String key, String argument, String error) {
        boolean failed() {
            return error != null;
        }
    }

    private final String program;
    private final String optstring;
    private final List<LongOption> longOptions;
    private final List<String> args;
    /** The argument being read, and where in it the next short option is (0: start a new argument). */
    private int index;
    private int cluster;
    private boolean done;

    /** @param program argv[0], the name glibc puts before each message */
    Getopt(String program, String optstring, List<LongOption> longOptions, List<String> args) {
        this.program = program;
        this.optstring = optstring;
        this.longOptions = longOptions;
        this.args = args;
    }

    /** The next option, or null when the options end. */
    Found next() {
        if (done) return null;
        if (cluster == 0) {
            if (index == args.size()) return end(index);
            String arg = args.get(index);
            if (arg.equals("--")) return end(index + 1);
            if (!arg.startsWith("-") || arg.length() == 1) return end(index); // an operand: stop (REQUIRE_ORDER)
            if (arg.startsWith("--")) {
                index++;
                return longOption(arg.substring(2));
            }
            cluster = 1;
        }
        return shortOption();
    }

    /** Index of the first operand (the first argument after "--" if that ended the options). */
    int firstOperand() {
        if (!done) throw new IllegalStateException("options not read to their end");
        return index;
    }

    private Found end(int operands) {
        done = true;
        index = operands;
        return null;
    }

    private Found shortOption() {
        String arg = args.get(index);
        char c = arg.charAt(cluster++);
        boolean last = cluster == arg.length();
        if (last) {
            index++;
            cluster = 0;
        }
        int at = optstring.indexOf(c, optstring.startsWith("+") ? 1 : 0); // the '+' is an ordering, not an option
        if (at < 0 || c == ':' || c == ';') return error("invalid option -- '" + c + "'");
        boolean takesArgument = at + 1 < optstring.length() && optstring.charAt(at + 1) == ':';
        if (!takesArgument) return new Found(String.valueOf(c), null, null);
        if (!last) {
            String value = arg.substring(cluster);
            index++;
            cluster = 0;
            return new Found(String.valueOf(c), value, null);
        }
        if (index == args.size()) return error("option requires an argument -- '" + c + "'");
        return new Found(String.valueOf(c), args.get(index++), null);
    }

    /** As glibc's process_long_option: text is what followed "--", "=VALUE" and all. */
    private Found longOption(String text) {
        int equals = text.indexOf('=');
        String name = equals < 0 ? text : text.substring(0, equals);
        LongOption found = null;
        for (LongOption o : longOptions) {
            if (o.name().equals(name)) {
                found = o;
                break;
            }
        }
        if (found == null) {
            StringBuilder ambiguous = null;
            for (LongOption o : longOptions) {
                if (!o.name().startsWith(name)) continue;
                if (found == null) {
                    found = o;
                } else if (o.hasArgument() != found.hasArgument() || !o.key().equals(found.key())) {
                    if (ambiguous == null) ambiguous = new StringBuilder(" '--").append(found.name()).append('\'');
                    ambiguous.append(" '--").append(o.name()).append('\'');
                }
            }
            if (ambiguous != null) return error("option '--" + text + "' is ambiguous; possibilities:" + ambiguous);
        }
        if (found == null) return error("unrecognized option '--" + text + "'");
        if (equals >= 0) {
            if (!found.hasArgument()) return error("option '--" + found.name() + "' doesn't allow an argument");
            return new Found(found.key(), text.substring(equals + 1), null);
        }
        if (!found.hasArgument()) return new Found(found.key(), null, null);
        if (index == args.size()) return error("option '--" + found.name() + "' requires an argument");
        return new Found(found.key(), args.get(index++), null);
    }

    private Found error(String message) {
        return new Found("?", null, program + ": " + message);
    }
}
