package io.jslirp.pasta;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The messages of pasta's control socket (-c, --conf-path), as passt's pesto client speaks them
 * (protocol version 2, passt 2026_07_16 and later; version 1, without target addresses, is not spoken), all integers big-endian:
 *
 * <pre>
 * server, on accepting:
 *   hello      8  magic "basil:s\0"
 *              4  version (2)
 *              4  the size of a table name (128)
 *              4  IFNAMSIZ (16)
 *   per table  1  its number (pasta's pif: 1 HOST, the -t/-u rules; 3 SPLICE, the -T/-U rules)
 *            128  its name, NUL-padded
 *              4  capabilities (CAP_ bits)
 *              4  its number of rules
 *         56 each the rules ({@link ForwardRule})
 *   end        1  0
 * client, to change the tables (or nothing: it only read them, and closes):
 *   per table  1  its number
 *              4  its number of rules
 *         56 each the rules: the table's whole new content
 *   end        1  0
 * </pre>
 *
 * The server then closes the connection. A table the client does not send keeps its rules.
 */
public final class ControlProtocol {
    public static final int VERSION = 2, NAME_SIZE = 128;
    public static final int PIF_NONE = 0, PIF_HOST = 1, PIF_SPLICE = 3;
    public static final int CAP_IPV4 = 1, CAP_IPV6 = 2, CAP_TCP = 4, CAP_UDP = 8, CAP_SCAN = 16, CAP_IFNAME = 32;
    /** Rules a table holds at most (pasta's MAX_FWD_RULES: what 8 bits count). */
    public static final int MAX_RULES = 255;
    /** The largest update a client can send: three tables of {@link #MAX_RULES} rules (pasta has three kinds of table). */
    public static final int MAX_UPDATE = 3 * (1 + 4 + MAX_RULES * ForwardRule.SIZE) + 1;
    static final byte[] MAGIC = "basil:s\0".getBytes(StandardCharsets.US_ASCII);

    private ControlProtocol() {}

    /** A table as the server describes it. */
    public record Table(int pif, String name, int caps, List<ForwardRule> rules) {
        public Table {
            rules = List.copyOf(rules);
        }
    }

    /** What the server sends on accepting a client: hello, then every table, then the end mark. */
    public static byte[] greeting(List<Table> tables) {
        int size = MAGIC.length + 12 + 1;
        for (Table t : tables) size += 1 + NAME_SIZE + 8 + t.rules().size() * ForwardRule.SIZE;
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.BIG_ENDIAN);
        b.put(MAGIC).putInt(VERSION).putInt(NAME_SIZE).putInt(ForwardRule.IFNAMSIZ);
        for (Table t : tables) {
            b.put((byte) t.pif());
            byte[] name = t.name().getBytes(StandardCharsets.US_ASCII);
            b.put(name).put(new byte[NAME_SIZE - name.length]);
            b.putInt(t.caps()).putInt(t.rules().size());
            for (ForwardRule r : t.rules()) r.write(b);
        }
        b.put((byte) PIF_NONE);
        return b.array();
    }

    /** What a client's bytes so far amount to. */
    public sealed interface Update {}

    /** Not all of it yet. */
    public record Incomplete() implements Update {}

    /** A whole update: each table sent, by number, with its new rules in the order sent. */
    public record Complete(Map<Integer, List<ForwardRule>> tables) implements Update {}

    /** Bytes that are no update: why, in one line. */
    public record Malformed(String why) implements Update {}

    /**
     * Reads the client's update from the first length bytes of data: {@link Complete} once its end
     * mark has come, {@link Incomplete} before, {@link Malformed} as soon as the bytes cannot be one
     * (a table not in tables, more than {@link #MAX_RULES} rules, a table twice, an interface name
     * without its NUL, bytes after the end mark).
     */
    public static Update parseUpdate(byte[] data, int length, Set<Integer> tables) {
        ByteBuffer b = ByteBuffer.wrap(data, 0, length).order(ByteOrder.BIG_ENDIAN);
        Map<Integer, List<ForwardRule>> out = new LinkedHashMap<>();
        while (true) {
            if (!b.hasRemaining()) return new Incomplete();
            int pif = b.get() & 0xff;
            if (pif == PIF_NONE) {
                if (b.hasRemaining()) return new Malformed("bytes after the end of an update");
                return new Complete(out);
            }
            if (!tables.contains(pif)) return new Malformed("rules for table " + pif + ", which does not exist");
            if (out.containsKey(pif)) return new Malformed("table " + pif + " sent twice");
            if (b.remaining() < 4) return new Incomplete();
            long count = b.getInt() & 0xffffffffL;
            if (count > MAX_RULES) return new Malformed("received " + count + " rules (maximum " + MAX_RULES + ")");
            if (b.remaining() < count * ForwardRule.SIZE) return new Incomplete();
            List<ForwardRule> rules = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ForwardRule r = ForwardRule.read(b);
                if (r == null) return new Malformed("Interface name was not NULL terminated");
                rules.add(r);
            }
            out.put(pif, rules);
        }
    }
}
