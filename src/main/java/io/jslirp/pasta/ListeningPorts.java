package io.jslirp.pasta;

import io.jslirp.sys.Namespaces;
import io.jslirp.sys.SockDiag;
import io.jslirp.sys.SysException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * The TCP ports listening and the UDP ports bound (unconnected) in one network namespace, IPv4
 * and IPv6 alike: what "auto" forwards. Asked of the kernel by sock_diag ({@link SockDiag}, which
 * walks the listening sockets alone), or, where the kernel has no such dump for a protocol, read
 * from /proc/net/{tcp,tcp6,udp,udp6} as pasta reads them (a file listing every socket of the
 * namespace). Both are opened once, from a thread in the namespace (a netlink socket and a
 * /proc/net file stay bound to the namespace they were opened in, and keep it alive), and then used
 * at each scan from any one thread at a time.
 */
public final class ListeningPorts implements AutoCloseable {
    /** The kernel's socket states (include/net/tcp_states.h): a TCP listener, and an unconnected UDP socket. */
    static final int TCP_LISTEN = 0x0A, UDP_UNCONNECTED = 0x07;

    private final SockDiag diag;
    /** The /proc/net files of a protocol sock_diag cannot dump (IPv4, IPv6), else null. */
    private final FileChannel[] procTcp, procUdp;
    private byte[] buffer = new byte[16384];

    private ListeningPorts(SockDiag diag, FileChannel[] procTcp, FileChannel[] procUdp) {
        this.diag = diag;
        this.procTcp = procTcp;
        this.procUdp = procUdp;
    }

    /** The namespace of the calling thread (for -T and -U: the host's). */
    public static ListeningPorts here() {
        return here(true);
    }

    /** As {@link #here}; without sockDiag, from /proc/net alone. */
    static ListeningPorts here(boolean sockDiag) {
        SockDiag diag = null;
        boolean tcp = false, udp = false;
        if (sockDiag) {
            try {
                diag = SockDiag.open();
                tcp = works(diag, SockDiag.TCP, SockDiag.LISTEN);
                udp = works(diag, SockDiag.UDP, SockDiag.CLOSE);
            } catch (SysException unavailable) {
                // no sock_diag at all: /proc/net for both
            }
        }
        if (diag != null && !tcp && !udp) {
            diag.close();
            diag = null;
        }
        FileChannel[] procTcp = null, procUdp = null;
        try {
            if (!tcp) procTcp = openProc("tcp", "tcp6");
            if (!udp) procUdp = openProc("udp", "udp6");
        } catch (UncheckedIOException e) {
            if (diag != null) diag.close();
            if (procTcp != null) closeAll(procTcp);
            throw e;
        }
        return new ListeningPorts(diag, procTcp, procUdp);
    }

    private static boolean works(SockDiag diag, int protocol, int states) {
        try {
            diag.localPorts(protocol, states, new BitSet());
            return true;
        } catch (SysException noDumpForIt) {
            return false;
        }
    }

    private static FileChannel[] openProc(String... names) {
        FileChannel[] files = new FileChannel[names.length];
        try {
            for (int i = 0; i < names.length; i++) files[i] = FileChannel.open(Path.of("/proc/thread-self/net", names[i]));
        } catch (IOException e) {
            closeAll(files);
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** The namespace at netnsPath (e.g. /proc/PID/ns/net), joined by a short-lived platform thread to open the sockets and files. */
    public static ListeningPorts open(String netnsPath) throws Exception {
        return Namespaces.callInNetns(netnsPath, ListeningPorts::here);
    }

    /** Whether a protocol is read from /proc/net (sock_diag cannot dump it). */
    boolean fromProc(boolean tcp) {
        return (tcp ? procTcp : procUdp) != null;
    }

    /** TCP ports in the listening state now. */
    public BitSet tcp() {
        BitSet ports = new BitSet(65536);
        if (procTcp == null) diag.localPorts(SockDiag.TCP, SockDiag.LISTEN, ports);
        else for (FileChannel f : procTcp) scan(f, TCP_LISTEN, ports);
        return ports;
    }

    /** UDP ports bound by unconnected sockets now. */
    public BitSet udp() {
        BitSet ports = new BitSet(65536);
        if (procUdp == null) diag.localPorts(SockDiag.UDP, SockDiag.CLOSE, ports);
        else for (FileChannel f : procUdp) scan(f, UDP_UNCONNECTED, ports);
        return ports;
    }

    private void scan(FileChannel file, int state, BitSet into) {
        int length;
        try {
            length = readAll(file);
        } catch (IOException e) {
            throw new UncheckedIOException("read /proc/net", e);
        }
        parse(buffer, length, state, into);
    }

    /** The whole file from its start: procfs makes it anew for each read from offset 0. */
    private int readAll(FileChannel channel) throws IOException {
        int total = 0;
        while (true) {
            if (total == buffer.length) buffer = Arrays.copyOf(buffer, buffer.length * 2);
            int n = channel.read(ByteBuffer.wrap(buffer, total, buffer.length - total), total);
            if (n <= 0) return total;
            total += n;
        }
    }

    /**
     * Sets into the local port of every line of a /proc/net/{tcp,udp}[6] text in state (pasta's
     * "%*u: %*x:%lx %*x:%*x %x"): after the header, "  sl: LOCALADDR:PORT REMADDR:PORT ST ...",
     * the port and the state in hex. Lines that do not fit are skipped.
     */
    static void parse(byte[] text, int length, int state, BitSet into) {
        int i = 0;
        while (i < length && text[i] != '\n') i++; // the header
        while (i < length) {
            int end = i + 1;
            while (end < length && text[end] != '\n') end++;
            int sl = skipSpaces(text, i + 1, end);
            int local = skipSpaces(text, skipField(text, sl, end), end), localEnd = skipField(text, local, end);
            int remote = skipSpaces(text, localEnd, end), st = skipSpaces(text, skipField(text, remote, end), end);
            int port = hexAfterColon(text, local, localEnd);
            if (port >= 0 && hex(text, st, skipField(text, st, end)) == state) into.set(port);
            i = end;
        }
    }

    private static int skipSpaces(byte[] text, int i, int end) {
        while (i < end && text[i] == ' ') i++;
        return i;
    }

    private static int skipField(byte[] text, int i, int end) {
        while (i < end && text[i] != ' ') i++;
        return i;
    }

    /** The hex number after the last ':' of text[from, to), or -1. */
    private static int hexAfterColon(byte[] text, int from, int to) {
        int colon = -1;
        for (int i = from; i < to; i++) if (text[i] == ':') colon = i;
        return colon < 0 ? -1 : hex(text, colon + 1, to);
    }

    private static int hex(byte[] text, int from, int to) {
        if (from >= to || to - from > 4) return -1;
        int v = 0;
        for (int i = from; i < to; i++) {
            int d = Character.digit(text[i], 16);
            if (d < 0) return -1;
            v = v << 4 | d;
        }
        return v;
    }

    @Override
    public void close() {
        if (diag != null) diag.close();
        if (procTcp != null) closeAll(procTcp);
        if (procUdp != null) closeAll(procUdp);
    }

    private static void closeAll(FileChannel[] files) {
        List<IOException> failures = new ArrayList<>();
        for (FileChannel f : files) {
            if (f == null) continue;
            try {
                f.close();
            } catch (IOException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) throw new UncheckedIOException(failures.get(0));
    }
}
