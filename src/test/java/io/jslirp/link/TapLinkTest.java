package io.jslirp.link;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.check.FrameReading;
import io.jslirp.stack.Counters;
import io.jslirp.stack.GuestOutput;
import io.jslirp.stack.Ipv6Network;
import io.jslirp.stack.LinkCapabilities;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.stack.Stack;
import io.jslirp.sys.Libc;
import io.jslirp.sys.Pipes;
import io.jslirp.sys.Tap;
import io.jslirp.util.AddressBook;
import io.jslirp.wire.IpVersion;
import io.jslirp.wire.Ipv6;
import io.jslirp.wire.Tcp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The tap's writes, with pipes for its queues: the vnet header it puts before each frame from the
 * stack's description equals what reading the frame's headers gives, and each flow keeps its queue.
 */
class TapLinkTest {
    private static final ValueLayout.OfShort LE16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int SEGMENT = 1448;

    private final MemorySegment buffer = Arena.ofAuto().allocate(1 << 17);
    private final long[] pipes = new long[2];
    private TapLink tap;
    private long now;

    /** A tap with vnet headers on queues pipes (their write ends), as the stack's link. */
    private Stack stack(int queues) {
        int[] fds = new int[queues];
        for (int i = 0; i < queues; i++) {
            pipes[i] = Pipes.pipe();
            fds[i] = Pipes.writeEnd(pipes[i]);
        }
        tap = new TapLink(() -> now, true, fds);
        NetworkConfig config = NetworkConfig.defaults();
        return new Stack(config, Ipv6Network.defaults(config), tap, new Counters(), new AddressBook());
    }

    @AfterEach
    void close() {
        if (tap != null) tap.close();
        for (long p : pipes) if (p != 0) Libc.close(Pipes.readEnd(p));
    }

    /** What queue wrote: its length, 0 when nothing. */
    private int read(int queue) {
        int n = Libc.read(Pipes.readEnd(pipes[queue]), buffer, 0, (int) buffer.byteSize());
        return Math.max(n, 0);
    }

    private static int[] vnetHeader(MemorySegment b) {
        return new int[] {b.get(ValueLayout.JAVA_BYTE, 0), b.get(ValueLayout.JAVA_BYTE, 1), b.get(LE16, 2), b.get(LE16, 4),
                b.get(LE16, 6), b.get(LE16, 8)};
    }

    private static int guest(GuestOutput out) {
        if (out.version() == 4) return out.guestAddress();
        long[] a = Ipv6.parse("fd00::5054:ff:fe12:3456");
        return out.addresses().acquire(a[0], a[1]);
    }

    /** Sends a segment from port to the guest's 40000 with payload bytes from elsewhere, its header with timestamps. */
    private static void sendTcp(GuestOutput out, int port, int payload) {
        long off = out.tcpOffset();
        int header = Tcp.appendTimestamps(out.frame(), off, Tcp.MIN_HEADER_LENGTH, 1, 2);
        Tcp.write(out.frame(), off, out.tcpHeader().ports(port, 40000).seq(1000).ack(2000).flags(Tcp.ACK).window(65535).length(header));
        MemorySegment data = Arena.ofAuto().allocate(payload);
        out.sendTcp(out.gateway(), guest(out), data, 0, payload, SEGMENT);
    }

    @Test
    void aTapSaysWhatItCanDo() {
        assertThat(new TapLink(true, 5).capabilities()).isEqualTo(new LinkCapabilities(false, true, true, false));
        assertThat(new TapLink(false, 5, 6).capabilities()).isEqualTo(new LinkCapabilities(false, false, false, true));
    }

    @ParameterizedTest
    @EnumSource(IpVersion.class)
    void theVnetHeaderOfATsoFrameIsWhatReadingItsHeadersGives(IpVersion v) {
        Stack stack = stack(1);
        GuestOutput out = v == IpVersion.V4 ? stack.ipv4() : stack.ipv6();
        sendTcp(out, 80, 4000);
        int n = read(0);
        assertThat(n).isEqualTo(Tap.VNET_HEADER_LENGTH + 14 + v.headerLength() + 32 + 4000);
        MemorySegment frame = buffer.asSlice(Tap.VNET_HEADER_LENGTH);
        assertThat(vnetHeader(buffer)).containsExactly(FrameReading.tcpVnetHeader(frame, n - Tap.VNET_HEADER_LENGTH, SEGMENT));

        sendTcp(out, 80, 100); // one segment: the checksum left to the kernel, not cut
        n = read(0);
        assertThat(vnetHeader(buffer)).containsExactly(FrameReading.tcpVnetHeader(frame, n - Tap.VNET_HEADER_LENGTH, SEGMENT));
        assertThat(vnetHeader(buffer)[1]).isEqualTo(FrameReading.GSO_NONE);
    }

    @Test
    void eachFlowKeepsTheQueueItsFirstFrameWasDealt() {
        Stack stack = stack(2);
        FlowLanes reference = new FlowLanes(2);
        int[] ports = {80, 443, 80, 8080, 443};
        for (int port : ports) {
            sendTcp(stack.ipv4(), port, 100);
            int on0 = read(0), on1 = read(1);
            assertThat(on0 == 0 ^ on1 == 0).as("one queue wrote").isTrue();
            int n = on0 + on1;
            MemorySegment frame = buffer.asSlice(Tap.VNET_HEADER_LENGTH);
            int expected = reference.laneOf(FrameReading.flowKey(frame, n - Tap.VNET_HEADER_LENGTH), now);
            assertThat(on0 > 0 ? 0 : 1).as("the queue of port " + port).isEqualTo(expected);
        }
    }

    @Test
    void aFrameNothingIsSaidOfGoesOnTheFirstQueueWithNothingOffloaded() {
        stack(2);
        MemorySegment frame = Arena.ofAuto().allocate(60);
        frame.fill((byte) 0x5a);
        assertThat(tap.send(frame, 60)).isTrue();
        assertThat(read(1)).isZero();
        assertThat(read(0)).isEqualTo(Tap.VNET_HEADER_LENGTH + 60);
        assertThat(vnetHeader(buffer)).containsOnly(0);
    }
}
