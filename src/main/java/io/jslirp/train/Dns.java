package io.jslirp.train;

import java.nio.ByteBuffer;

/** The training's DNS messages: a query for an A record, and the answer its host gives to any query. */
final class Dns {
    private static final int HEADER = 12;
    private static final short TYPE_A = 1, CLASS_IN = 1;

    private Dns() {}

    /** A recursive query with id for name's A record. */
    static byte[] query(int id, String name) {
        ByteBuffer b = ByteBuffer.allocate(HEADER + name.length() + 2 + 4);
        b.putShort((short) id).putShort((short) 0x0100).putShort((short) 1).putShort((short) 0).putInt(0);
        for (String label : name.split("\\.")) {
            b.put((byte) label.length());
            for (int i = 0; i < label.length(); i++) b.put((byte) label.charAt(i));
        }
        b.put((byte) 0).putShort(TYPE_A).putShort(CLASS_IN);
        return b.array();
    }

    /**
     * The answer to query (its first length bytes): the question again and one A record of address
     * (a pointer to the question's name, TTL 60); null when it is no single-question query.
     */
    static byte[] answer(byte[] query, int length, byte[] address) {
        if (length < HEADER + 5 || (query[2] & 0x80) != 0 || query[4] != 0 || query[5] != 1) return null;
        int end = HEADER;
        while (end < length && query[end] != 0) end += (query[end] & 0xff) + 1;
        end += 5; // the root label, type and class
        if (end > length) return null;
        ByteBuffer b = ByteBuffer.allocate(end + 16);
        b.put(query, 0, end);
        b.putShort(2, (short) 0x8180).putShort(6, (short) 1).putShort(8, (short) 0).putShort(10, (short) 0);
        b.putShort((short) (0xc000 | HEADER)).putShort(TYPE_A).putShort(CLASS_IN).putInt(60).putShort((short) 4).put(address);
        return b.array();
    }

    /** Whether reply answers the query with id. */
    static boolean answers(byte[] reply, int length, int id) {
        return length >= HEADER && ((reply[0] & 0xff) << 8 | reply[1] & 0xff) == id && (reply[2] & 0x80) != 0;
    }
}
