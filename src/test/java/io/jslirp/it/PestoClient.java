package io.jslirp.it;

import io.jslirp.pasta.ControlProtocol;
import io.jslirp.pasta.ForwardRule;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What passt's pesto does on pasta's control socket, for the tests: read the greeting (hello and
 * every table), then send nothing (a listing), whole new tables, or bytes as they are (a recorded
 * exchange, bytes that are no update).
 */
final class PestoClient {
    private PestoClient() {}

    /** The tables the server lists. */
    static List<ControlProtocol.Table> list(Path socket) throws IOException {
        try (SocketChannel c = connect(socket)) {
            return greeting(c);
        }
    }

    /** Replaces the HOST table (pif 1) with rules, as pesto does, leaving SPLICE as listed. */
    static void replaceHost(Path socket, List<ForwardRule> rules) throws IOException {
        try (SocketChannel c = connect(socket)) {
            List<ControlProtocol.Table> tables = greeting(c);
            ByteBuffer b = ByteBuffer.allocate(ControlProtocol.MAX_UPDATE);
            for (ControlProtocol.Table t : tables) {
                List<ForwardRule> its = t.pif() == ControlProtocol.PIF_HOST ? rules : t.rules();
                b.put((byte) t.pif()).putInt(its.size());
                for (ForwardRule r : its) r.write(b);
            }
            b.put((byte) 0).flip();
            while (b.hasRemaining()) c.write(b);
            c.shutdownOutput();
        }
    }

    /** Reads the greeting, then sends bytes as they are and closes. */
    static void raw(Path socket, byte[] bytes) throws IOException {
        try (SocketChannel c = connect(socket)) {
            greeting(c);
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) c.write(b);
            c.shutdownOutput();
        }
    }

    private static SocketChannel connect(Path socket) throws IOException {
        SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
        c.connect(UnixDomainSocketAddress.of(socket));
        return c;
    }

    private static List<ControlProtocol.Table> greeting(SocketChannel c) throws IOException {
        DataInputStream in = new DataInputStream(Channels.newInputStream(c));
        byte[] magic = new byte[8];
        in.readFully(magic);
        if (!new String(magic, StandardCharsets.US_ASCII).equals("basil:s\0")) throw new IOException("Bad magic number from server");
        int version = in.readInt(), nameSize = in.readInt(), ifnamsiz = in.readInt();
        if (version != 2 || nameSize != 128 || ifnamsiz != 16) throw new IOException("hello " + version + " " + nameSize + " " + ifnamsiz);
        List<ControlProtocol.Table> tables = new ArrayList<>();
        for (int pif; (pif = in.readUnsignedByte()) != 0; ) {
            byte[] name = new byte[128];
            in.readFully(name);
            int caps = in.readInt(), count = in.readInt();
            byte[] rules = new byte[count * ForwardRule.SIZE];
            in.readFully(rules);
            ByteBuffer b = ByteBuffer.wrap(rules);
            List<ForwardRule> list = new ArrayList<>();
            for (int i = 0; i < count; i++) list.add(ForwardRule.read(b));
            tables.add(new ControlProtocol.Table(pif, new String(name, StandardCharsets.US_ASCII).replace("\0", ""), caps, list));
        }
        return tables;
    }
}
