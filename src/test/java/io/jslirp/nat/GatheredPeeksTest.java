package io.jslirp.nat;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.link.StreamLink;
import io.jslirp.stack.TxBatch;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * QEMU's stream link writes a large payload from the peek window it was handed in, at its flush:
 * through the transmit batch, the peek area never hands that window out again before the flush,
 * in one iteration (more peeks than windows) or across iterations (windows that the iteration's
 * flush wrote out are reused). Every payload the VM reads is the one that was sent.
 */
class GatheredPeeksTest {
    /** Large enough for the link to gather it rather than copy it. */
    private static final int PAYLOAD = 20_000;
    private static final int HEADERS = 14;

    @TempDir
    Path dir;

    @Test
    void noGatheredPayloadIsOverwrittenBeforeTheLinkWroteItOut() throws Exception {
        Path path = dir.resolve("vm.sock");
        try (StreamLink link = StreamLink.listenUnix(path.toString());
             SocketChannel vm = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            MemorySegment in = Arena.ofAuto().allocate(65536 + 64);
            for (int i = 0; i < 2000 && !link.connected(); i++) {
                link.receive(0, in);
                Thread.sleep(1);
            }
            assertThat(link.connected()).isTrue();
            TxBatch batch = new TxBatch(link, link.capabilities());
            PeekArea area = new PeekArea(batch);
            MemorySegment headers = Arena.ofAuto().allocate(HEADERS);
            int id = 0;
            // peeks per iteration: more than the windows, fewer, and a run that wraps around the
            // windows an earlier iteration's flush wrote out
            for (int peeks : new int[] {PeekArea.SLOTS + 2, 1, 3, PeekArea.SLOTS * 2 + 1, 2}) {
                int first = id;
                for (int p = 0; p < peeks; p++, id++) {
                    MemorySegment window = area.nextWindow();
                    window.asSlice(0, PAYLOAD).fill((byte) (id + 1)); // what a peek writes there
                    headers.fill((byte) (id + 1));
                    assertThat(link.send(headers, HEADERS, window, 0, PAYLOAD)).isTrue();
                }
                batch.flush(); // the iteration's end
                for (int f = first; f < id; f++) {
                    ByteBuffer frame = readExactly(vm, 4 + HEADERS + PAYLOAD);
                    assertThat(frame.getInt()).isEqualTo(HEADERS + PAYLOAD);
                    byte[] body = new byte[HEADERS + PAYLOAD];
                    frame.get(body);
                    byte[] expected = new byte[HEADERS + PAYLOAD];
                    java.util.Arrays.fill(expected, (byte) (f + 1));
                    assertThat(body).as("frame %d: its own payload, not a later peek's", f).isEqualTo(expected);
                }
            }
        }
    }

    private static ByteBuffer readExactly(SocketChannel vm, int n) throws IOException {
        ByteBuffer got = ByteBuffer.allocate(n);
        while (got.hasRemaining()) vm.read(got);
        return got.flip();
    }
}
