package io.jslirp.cli;

/** Byte sizes on the command line: a number with an optional K, M or G suffix (powers of 1024). */
final class Sizes {
    private Sizes() {}

    /** Parses text given for flag; IllegalArgumentException says what is wrong. */
    static long parse(String flag, String text) {
        String t = text.strip().toUpperCase(java.util.Locale.ROOT);
        int shift = 0;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'K' -> shift = 10;
                case 'M' -> shift = 20;
                case 'G' -> shift = 30;
                default -> { }
            }
        }
        String digits = shift == 0 ? t : t.substring(0, t.length() - 1);
        try {
            long n = Long.parseLong(digits);
            if (n < 0 || n > Long.MAX_VALUE >> shift) throw new NumberFormatException();
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " " + text + ": expected a size such as 65536, 512K or 1M");
        }
    }
}
