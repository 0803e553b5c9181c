package io.jslirp.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.capture.Capture;
import io.jslirp.capture.PcapWriter;
import io.jslirp.stack.Counters;
import io.jslirp.stack.FrameSink;
import io.jslirp.stack.GuestOutput;
import io.jslirp.stack.LinkCapabilities;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.stack.Stack;
import io.jslirp.stack.TxFrame;
import io.jslirp.wire.Tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --pcap between the stack and a link: the link's capabilities and refusals pass through, and each frame it took is recorded whole. */
class CapturingSinkTest {
    @TempDir
    Path tmp;

    /** A link that offloads and gathers, keeps what it took put together, and refuses UDP frames to be cut. */
    private static final class OffloadingLink implements FrameSink {
        final List<byte[]> took = new ArrayList<>();

        @Override
        public LinkCapabilities capabilities() {
            return new LinkCapabilities(true, true, true, false);
        }

        @Override
        public boolean send(MemorySegment frame, int length) {
            took.add(frame.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
            return true;
        }

        @Override
        public boolean send(TxFrame f) {
            if (f.segmentation() == TxFrame.Segmentation.UDP) {
                f.refuse();
                return false;
            }
            byte[] b = new byte[f.length()];
            MemorySegment.copy(f.frame(), ValueLayout.JAVA_BYTE, 0, b, 0, f.frameLength());
            MemorySegment.copy(f.payload(), ValueLayout.JAVA_BYTE, f.payloadOffset(), b, f.frameLength(), f.payloadLength());
            took.add(b);
            return true;
        }
    }

    @Test
    void recordsWhatTheLinkTookWholeAndPassesItsCapabilitiesAndRefusalsOn() throws Exception {
        Path file = tmp.resolve("c.pcap");
        OffloadingLink link = new OffloadingLink();
        Capture capture = new Capture(PcapWriter.open(file, 1 << 20), null);
        Stack stack = new Stack(NetworkConfig.defaults(), new CapturingSink(link, capture), new Counters());
        GuestOutput out = stack.ipv4();
        assertThat(stack.capabilities()).isEqualTo(link.capabilities());

        MemorySegment f = out.frame();
        Tcp.write(f, out.tcpOffset(), out.tcpHeader().ports(80, 40000)
                .seq(1).ack(2).flags(Tcp.ACK).window(65535).length(Tcp.MIN_HEADER_LENGTH));
        MemorySegment payload = Arena.ofAuto().allocate(3000);
        for (int i = 0; i < 3000; i++) payload.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        out.sendTcp(out.gateway(), out.guestAddress(), payload, 0, 3000, 1460);
        assertThat(out.sendUdpSegments(out.gateway(), 53, out.guestAddress(), 40000, 2400, 1200)).isFalse();
        assertThat(out.offloadsUdp()).as("the link's refusal reached the stack").isFalse();
        capture.close();

        assertThat(link.took).hasSize(1);
        byte[] sent = link.took.getFirst();
        assertThat(sent).hasSize(14 + 20 + 20 + 3000);
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(b.limit()).as("one frame recorded, the refused one not").isEqualTo(24 + 16 + sent.length);
        byte[] recorded = new byte[sent.length];
        b.position(24 + 16).get(recorded);
        assertThat(recorded).isEqualTo(sent);
    }
}
