package io.jslirp.link;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** QEMU's stream framing against a real unix socket, with a java.nio client as the VM. */
class StreamLinkTest {
    @TempDir
    Path dir;

    private final MemorySegment buffer = Arena.ofAuto().allocate(StreamLink.MAX_FRAME);

    private static byte[] frame(int length, int seed) {
        byte[] f = new byte[length];
        for (int i = 0; i < length; i++) f[i] = (byte) (seed * 31 + i);
        return f;
    }

    private static ByteBuffer framed(byte[]... frames) {
        int total = 0;
        for (byte[] f : frames) total += 4 + f.length;
        ByteBuffer b = ByteBuffer.allocate(total);
        for (byte[] f : frames) b.putInt(f.length).put(f);
        return b.flip();
    }

    /** A link on a unix socket and the VM it took the connection of. */
    private record Served(StreamLink link, SocketChannel vm) implements AutoCloseable {
        @Override
        public void close() throws IOException {
            try (link; vm) { }
        }
    }

    private Served servedOverUnix() throws Exception {
        Path path = dir.resolve("q.sock");
        StreamLink link = StreamLink.listenUnix(path.toString());
        Served served = new Served(link, SocketChannel.open(UnixDomainSocketAddress.of(path)));
        connected(served.vm(), link);
        return served;
    }

    /** The VM sends a frame and the link takes it: the link has taken the connection. */
    private void connected(SocketChannel vm, StreamLink link) throws Exception {
        vm.write(framed(frame(42, 9)));
        next(link);
    }

    /** Exactly n bytes the VM reads, ready to be taken apart. */
    private static ByteBuffer readExactly(SocketChannel vm, int n) throws IOException {
        ByteBuffer got = ByteBuffer.allocate(n);
        while (got.hasRemaining()) vm.read(got);
        return got.flip();
    }

    /** What got holds next is the frames, each after its length. */
    private static void assertFrames(ByteBuffer got, java.util.List<byte[]> frames) {
        for (byte[] t : frames) {
            assertThat(got.remaining()).as("everything the link took arrived").isGreaterThanOrEqualTo(4 + t.length);
            assertThat(got.getInt()).isEqualTo(t.length);
            byte[] body = new byte[t.length];
            got.get(body);
            assertThat(body).isEqualTo(t);
        }
    }

    /** A port of 127.0.0.1 that nobody listens on now. */
    private static int freeTcpPort() throws IOException {
        try (java.net.ServerSocket probe = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }

    /** Polls the link until a frame arrives (the link is non-blocking). */
    private byte[] next(StreamLink link) throws InterruptedException {
        for (int i = 0; i < 2000; i++) {
            int n = link.receive(0, buffer);
            assertThat(n).as("the link ended").isGreaterThanOrEqualTo(0);
            if (n > 0) return buffer.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
            Thread.sleep(1);
        }
        throw new AssertionError("no frame arrived");
    }

    @Test
    void framesSplitAnywhereArriveWhole() throws Exception {
        Path path = dir.resolve("q.sock");
        try (StreamLink link = StreamLink.listenUnix(path.toString());
             SocketChannel vm = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            byte[] a = frame(60, 1), b = frame(1514, 2), c = frame(65535, 3);
            ByteBuffer all = framed(a, b, c);
            // Written in awkward pieces: inside the length prefix, inside a frame, across frames.
            for (int cut : new int[] {2, 5, 70, 1600, all.remaining()}) {
                ByteBuffer piece = all.duplicate().limit(Math.min(cut, all.limit()));
                vm.write(piece);
                all.position(piece.position());
            }
            assertThat(next(link)).isEqualTo(a);
            assertThat(next(link)).isEqualTo(b);
            assertThat(next(link)).isEqualTo(c);
            assertThat(link.receive(0, buffer)).isZero();
        }
        assertThat(Files.exists(path)).as("the socket file is removed at close").isFalse();
    }

    @Test
    void framesToThePeerAreLengthPrefixedAndWrittenAtTheFlush() throws Exception {
        try (Served served = servedOverUnix()) {
            StreamLink link = served.link();
            SocketChannel vm = served.vm();
            MemorySegment f = Arena.ofAuto().allocate(2000);
            for (int i = 0; i < 3; i++) {
                MemorySegment.copy(frame(100 + i, i), 0, f, ValueLayout.JAVA_BYTE, 0, 100 + i);
                assertThat(link.send(f, 100 + i)).isTrue();
            }
            link.flush();
            ByteBuffer got = readExactly(vm, 3 * 4 + 303);
            for (int i = 0; i < 3; i++) {
                assertThat(got.getInt()).isEqualTo(100 + i);
                byte[] body = new byte[100 + i];
                got.get(body);
                assertThat(body).isEqualTo(frame(100 + i, i));
            }
        }
    }

    @Test
    void aFrameWithItsPayloadElsewhereGoesOutWhole() throws Exception {
        try (Served served = servedOverUnix()) {
            StreamLink link = served.link();
            SocketChannel vm = served.vm();
            byte[] whole = frame(65534, 4);
            int headers = 66;
            // the headers in a frame buffer whose rest holds other bytes, the payload in a buffer of its own at an offset
            MemorySegment f = Arena.ofAuto().allocate(70_000);
            f.fill((byte) 0x5a);
            MemorySegment.copy(whole, 0, f, ValueLayout.JAVA_BYTE, 0, headers);
            MemorySegment payload = Arena.ofAuto().allocate(70_000);
            MemorySegment.copy(whole, headers, payload, ValueLayout.JAVA_BYTE, 7, whole.length - headers);
            assertThat(link.send(f, headers, payload, 7, whole.length - headers)).isTrue();
            assertThat(link.send(f, 10)).isTrue(); // and a frame sent whole after it
            link.flush();
            ByteBuffer got = readExactly(vm, 4 + whole.length + 4 + 10);
            assertThat(got.getInt()).isEqualTo(whole.length);
            byte[] body = new byte[whole.length];
            got.get(body);
            assertThat(body).isEqualTo(whole);
            assertThat(got.getInt()).isEqualTo(10);
        }
    }

    /** Large payloads wait where they are until the flush, and then go in one write with the frames around them. */
    @Test
    void largePayloadsWaitForTheFlushAndGoInOneWrite() throws Exception {
        try (Served served = servedOverUnix()) {
            StreamLink link = served.link();
            SocketChannel vm = served.vm();
            int headers = 66, payloadLength = 60_000;
            MemorySegment f = Arena.ofAuto().allocate(70_000);
            MemorySegment payload = Arena.ofAuto().allocate(3L * payloadLength);
            java.util.List<byte[]> sent = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) {
                byte[] large = frame(headers + payloadLength, 50 + i);
                MemorySegment.copy(large, 0, f, ValueLayout.JAVA_BYTE, 0, headers);
                MemorySegment.copy(large, headers, payload, ValueLayout.JAVA_BYTE, (long) i * payloadLength, payloadLength);
                assertThat(link.send(f, headers, payload, (long) i * payloadLength, payloadLength)).isTrue();
                f.fill((byte) 0x66); // the headers are the link's once send returns
                sent.add(large);
                byte[] small = frame(60, 60 + i);
                MemorySegment.copy(small, 0, f, ValueLayout.JAVA_BYTE, 0, small.length);
                assertThat(link.send(f, small.length)).isTrue();
                sent.add(small);
            }
            vm.configureBlocking(false);
            assertThat(vm.read(ByteBuffer.allocate(16))).as("nothing is written before the flush").isZero();
            link.flush();
            payload.fill((byte) 0x77); // after the flush the payloads' memory is the sender's again
            int total = 0;
            for (byte[] t : sent) total += 4 + t.length;
            vm.configureBlocking(true);
            assertFrames(readExactly(vm, total), sent);
        }
    }

    /**
     * Large payloads go to the socket from where they wait, at the flush, behind the frames
     * gathered before them and ahead of those after; what the socket does not take is copied
     * (the payloads' memory is reused after each flush, as the NAT reuses its peek windows): a VM
     * that reads nothing for a while, then all, gets every frame the link took, whole and in
     * order. Over a unix socket (which takes a write whole or not at all) and TCP (QEMU's -netdev
     * socket: it takes part of one).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"unix", "tcp"})
    void largePayloadsAreWrittenFromWhereTheyWaitInOrderAndWhatTheSocketRefusesIsKept(String kind) throws Exception {
        StreamLink link;
        SocketChannel vm;
        if (kind.equals("unix")) {
            Path path = dir.resolve("q.sock");
            link = StreamLink.listenUnix(path.toString());
            vm = SocketChannel.open(UnixDomainSocketAddress.of(path));
        } else {
            int port = freeTcpPort();
            link = StreamLink.listenTcp(io.jslirp.wire.Ipv4.parse("127.0.0.1"), port);
            vm = SocketChannel.open(new java.net.InetSocketAddress("127.0.0.1", port));
        }
        try (link; vm) {
            connected(vm, link);
            int headers = 66;
            MemorySegment f = Arena.ofAuto().allocate(70_000);
            MemorySegment[] windows = new MemorySegment[4];
            for (int w = 0; w < windows.length; w++) windows[w] = Arena.ofAuto().allocate(70_000);
            int slot = 0;
            java.util.List<byte[]> taken = new java.util.ArrayList<>();
            for (int i = 0; i < 600; i++) { // far more than the socket and the output buffer hold
                if (i % 4 == 0) { // now and then a small frame between runs of large ones
                    byte[] small = frame(60, 1000 + i);
                    MemorySegment.copy(small, 0, f, ValueLayout.JAVA_BYTE, 0, small.length);
                    if (!link.send(f, small.length)) break;
                    taken.add(small);
                }
                if (slot == windows.length) { // a window is used again only after a flush, and then changes
                    link.flush();
                    for (MemorySegment w : windows) w.fill((byte) 0x77);
                    slot = 0;
                }
                MemorySegment payload = windows[slot++];
                int payloadLength = i % 2 == 0 ? StreamLink.DIRECT_PAYLOAD : 60_000;
                byte[] large = frame(headers + payloadLength, i);
                MemorySegment.copy(large, 0, f, ValueLayout.JAVA_BYTE, 0, headers);
                MemorySegment.copy(large, headers, payload, ValueLayout.JAVA_BYTE, 5, payloadLength);
                boolean took = link.send(f, headers, payload, 5, payloadLength);
                f.fill((byte) 0x66); // the frame buffer is reused at once
                if (!took) break;
                taken.add(large);
            }
            link.flush();
            for (MemorySegment w : windows) w.fill((byte) 0x77);
            int total = 0;
            for (byte[] t : taken) total += 4 + t.length;
            assertThat(total).as("the socket and the buffer filled: frames were refused").isLessThan(600 * 40_000);
            ByteBuffer got = ByteBuffer.allocate(total);
            long deadline = System.nanoTime() + 10_000_000_000L;
            vm.configureBlocking(false);
            while (got.hasRemaining() && System.nanoTime() < deadline) {
                if (vm.read(got) == 0) {
                    link.flush(); // what waited in the output buffer goes as the socket drains
                    Thread.sleep(1);
                }
            }
            assertFrames(got.flip(), taken);
        }
    }

    @Test
    void aNewConnectionIsServedAfterThePeerLeavesAndABadLengthDisconnects() throws Exception {
        Path path = dir.resolve("q.sock");
        try (StreamLink link = StreamLink.listenUnix(path.toString())) {
            MemorySegment f = Arena.ofAuto().allocate(64);
            assertThat(link.send(f, 64)).as("no VM yet: the frame is dropped").isFalse();
            try (SocketChannel first = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
                first.write(framed(frame(64, 1)));
                assertThat(next(link)).isEqualTo(frame(64, 1));
            }
            try (SocketChannel second = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
                second.write(framed(frame(64, 2)));
                assertThat(next(link)).isEqualTo(frame(64, 2)); // the VM restarted and reconnected

                second.write(ByteBuffer.allocate(4).putInt(0, -1));
                for (int i = 0; i < 1000 && link.connected(); i++) {
                    assertThat(link.receive(0, buffer)).isZero();
                    Thread.sleep(1);
                }
                assertThat(link.connected()).as("a peer that is not a QEMU stream is disconnected").isFalse();
                assertThat(second.read(ByteBuffer.allocate(1))).isEqualTo(-1);
            }
            try (SocketChannel third = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
                third.write(framed(frame(70, 3)));
                assertThat(next(link)).isEqualTo(frame(70, 3));
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * A VM that connects while the instance has no descriptor left (accept fails with EMFILE)
     * does not keep the link's descriptor readable: the listener rests between attempts, so the
     * loop does not spin, and the VM is served once a descriptor is free.
     */
    @Test
    void aConnectionThatFindsNoDescriptorLeftWaitsWithoutSpinningAndIsServedLater() throws Exception {
        Path path = dir.resolve("r.sock");
        RefusingAccept accept = new RefusingAccept();
        try (StreamLink link = StreamLink.listenUnix(path.toString(), "the test's socket", accept);
             SocketChannel vm = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            vm.write(framed(frame(64, 5)));
            accept.refuse(3, link.fd(0), () -> assertThat(link.receive(0, buffer)).isZero());
            assertThat(link.connected()).isFalse();
            accept.allow();
            assertThat(next(link)).as("the waiting VM's frame, once it could be taken").isEqualTo(frame(64, 5));
        }
    }

    /**
     * A read that took all the socket had hands out its frames and ends the batch without reading
     * again; what comes next, and a new connection waiting while the current peer is still there
     * but idle (a VM restarted before its old socket closed), is still taken on later calls.
     */
    @Test
    void aDrainedReadEndsTheBatchAndLaterFramesAndANewConnectionAreStillTaken() throws Exception {
        Path path = dir.resolve("d.sock");
        try (StreamLink link = StreamLink.listenUnix(path.toString());
             SocketChannel first = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            first.write(framed(frame(100, 1), frame(200, 2)));
            assertThat(next(link)).isEqualTo(frame(100, 1));
            assertThat(next(link)).isEqualTo(frame(200, 2));
            first.write(framed(frame(300, 3)));
            assertThat(next(link)).as("written after the drained read").isEqualTo(frame(300, 3));
            try (SocketChannel second = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
                second.write(framed(frame(64, 4)));
                assertThat(next(link)).as("the new connection replaced the idle one").isEqualTo(frame(64, 4));
                assertThat(first.read(ByteBuffer.allocate(1))).as("the old peer was disconnected").isEqualTo(-1);
            }
        }
    }

    /** A length prefix of 0, one byte past the largest frame, or 1 GiB ends the peer's connection; nothing is allocated for it. */
    @Test
    void hostileLengthPrefixesDisconnectWithoutAllocating() throws Exception {
        Path path = dir.resolve("h.sock");
        try (StreamLink link = StreamLink.listenUnix(path.toString())) {
            for (int length : new int[] {0, StreamLink.MAX_FRAME + 1, 1 << 30}) {
                try (SocketChannel vm = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
                    vm.write(framed(frame(64, 1)));
                    assertThat(next(link)).isEqualTo(frame(64, 1));
                    long heapBefore = usedHeap();
                    vm.write(ByteBuffer.allocate(8).putInt(0, length)); // and 4 bytes of a "frame"
                    for (int i = 0; i < 1000 && link.connected(); i++) {
                        assertThat(link.receive(0, buffer)).isZero();
                        Thread.sleep(1);
                    }
                    assertThat(link.connected()).as("length %d disconnects", length).isFalse();
                    assertThat(usedHeap() - heapBefore).as("heap growth for length %d", length).isLessThan(16L << 20);
                }
            }
        }
    }

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    /** QEMU's older -netdev socket,connect=ADDR:PORT: the same framing over TCP on loopback. */
    @Test
    void tcpListenerServesTheSameFraming() throws Exception {
        int port = freeTcpPort();
        try (StreamLink link = StreamLink.listenTcp(io.jslirp.wire.Ipv4.parse("127.0.0.1"), port);
             SocketChannel vm = SocketChannel.open(new java.net.InetSocketAddress("127.0.0.1", port))) {
            vm.write(framed(frame(1514, 5)));
            assertThat(next(link)).isEqualTo(frame(1514, 5));
        }
    }

    /** A connected socket handed over by a parent (--fd): served until the peer closes, then the link ends. */
    @Test
    void aHandedOverSocketEndsTheLinkWhenThePeerCloses() throws Exception {
        Path path = dir.resolve("parent.sock");
        try (java.nio.channels.ServerSocketChannel parent = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            parent.bind(UnixDomainSocketAddress.of(path));
            int fd = io.jslirp.sys.Sockets.unixStream();
            int r = io.jslirp.sys.Sockets.connectUnix(fd, path.toString());
            assertThat(r == 0 || r == -io.jslirp.sys.Errno.EINPROGRESS || r == -io.jslirp.sys.Errno.EAGAIN).isTrue();
            try (SocketChannel vm = parent.accept(); StreamLink link = StreamLink.connected(fd)) {
                vm.write(framed(frame(60, 6)));
                assertThat(next(link)).isEqualTo(frame(60, 6));
                vm.close();
                int n = 0;
                for (int i = 0; i < 1000 && n == 0; i++) {
                    n = link.receive(0, buffer);
                    if (n == 0) Thread.sleep(1);
                }
                assertThat(n).as("the link ends with its only peer").isEqualTo(-1);
            }
        }
    }
}
