package io.jslirp.cli;

import java.util.List;

/** Text rows as aligned columns, two spaces apart, as {@code ss} prints them. */
final class Columns {
    private Columns() {
    }

    /** Each row on its own line; column i right-aligned where rightAligned[i]. Trailing spaces are trimmed. */
    static String format(List<String[]> rows, boolean[] rightAligned) {
        int[] width = new int[rightAligned.length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) width[i] = Math.max(width[i], r[i].length());
        }
        StringBuilder out = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                if (i > 0) line.append("  ");
                String pad = " ".repeat(width[i] - r[i].length());
                line.append(rightAligned[i] ? pad + r[i] : r[i] + pad);
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }
}
