package io.jslirp.pasta;

/**
 * Numbers as the C library's strtol and strtoul read them, which is how pasta reads -m, -n,
 * --log-size, --fd and PIDs: leading white space, a sign, in base 0 a "0x" (hex) or "0" (octal)
 * prefix, as many digits as there are, and the rest ignored unless the caller looks at it (pasta
 * mostly does not: "-m 1500abc" is an MTU of 1500).
 */
record CNumber(long value, int end, boolean overflow) {
    /** Whether the digits reached the end of the text (strtol's *endptr == '\0'). */
    boolean whole(String text) {
        return end == text.length();
    }

    /** strtol(text, &end, base): base 10, 16, or 0 for C's prefixes. LONG_MAX or LONG_MIN on overflow. */
    static CNumber strtol(String text, int base) {
        return read(text, base, true);
    }

    /**
     * strtoul: as strtol, but the value is unsigned 64-bit (compare it with
     * {@link Long#compareUnsigned}), and a negative number is negated modulo 2^64 ("-1" is ULONG_MAX).
     */
    static CNumber strtoul(String text, int base) {
        return read(text, base, false);
    }

    private static CNumber read(String s, int base, boolean signed) {
        int i = 0, n = s.length();
        while (i < n && " \t\n\u000b\f\r".indexOf(s.charAt(i)) >= 0) i++;
        boolean negative = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) negative = s.charAt(i++) == '-';
        if ((base == 0 || base == 16) && i + 1 < n && s.charAt(i) == '0' && (s.charAt(i + 1) | 0x20) == 'x'
                && i + 2 < n && digit(s.charAt(i + 2), 16) >= 0) {
            base = 16;
            i += 2;
        } else if (base == 0) {
            base = i < n && s.charAt(i) == '0' ? 8 : 10;
        }
        int start = i;
        long magnitude = 0; // unsigned
        boolean overflow = false;
        for (; i < n; i++) {
            int d = digit(s.charAt(i), base);
            if (d < 0) break;
            // magnitude * base + d fits in 64 unsigned bits exactly when magnitude <= (2^64 - 1 - d) / base.
            if (overflow || Long.compareUnsigned(magnitude, Long.divideUnsigned(-1L - d, base)) > 0) overflow = true;
            else magnitude = magnitude * base + d;
        }
        if (i == start) return new CNumber(0, 0, false); // no digits: strtol points back at the start
        long value;
        if (signed) {
            long limit = negative ? Long.MIN_VALUE : Long.MAX_VALUE;
            if (overflow || Long.compareUnsigned(magnitude, negative ? 1L << 63 : Long.MAX_VALUE) > 0) {
                return new CNumber(limit, i, true);
            }
            value = negative ? -magnitude : magnitude;
        } else {
            if (overflow) return new CNumber(-1L, i, true);
            value = negative ? -magnitude : magnitude;
        }
        return new CNumber(value, i, false);
    }

    private static int digit(char c, int base) {
        int d = c >= '0' && c <= '9' ? c - '0' : (c | 0x20) >= 'a' && (c | 0x20) <= 'z' ? (c | 0x20) - 'a' + 10 : -1;
        return d < base ? d : -1;
    }
}
