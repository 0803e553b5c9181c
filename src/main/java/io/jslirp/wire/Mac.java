package io.jslirp.wire;

/** Ethernet MAC addresses as 48-bit longs. */
public final class Mac {
    private Mac() {}

    public static String format(long mac) {
        StringBuilder b = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8) {
            if (shift != 40) b.append(':');
            b.append(String.format("%02x", (mac >>> shift) & 0xff));
        }
        return b.toString();
    }

    /** Parses "xx:xx:xx:xx:xx:xx"; throws IllegalArgumentException naming the bad text. */
    public static long parse(String text) {
        String[] parts = text.split(":", -1);
        if (parts.length != 6) throw new IllegalArgumentException("not a MAC address: " + text);
        long mac = 0;
        for (String p : parts) {
            if (p.length() != 2 || !isHexDigit(p.charAt(0)) || !isHexDigit(p.charAt(1))) {
                throw new IllegalArgumentException("not a MAC address: " + text);
            }
            mac = (mac << 8) | Integer.parseInt(p, 16);
        }
        return mac;
    }

    /** ASCII only: Character.digit would also accept other scripts' and full-width digits. */
    private static boolean isHexDigit(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }

    public static byte[] toBytes(long mac) {
        byte[] b = new byte[6];
        for (int i = 0; i < 6; i++) b[i] = (byte) (mac >>> (40 - 8 * i));
        return b;
    }
}
