package io.jslirp.vhostuser;

import static io.jslirp.vhostuser.Features.bit;
import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.virtio.Chain;
import io.jslirp.virtio.Le;
import io.jslirp.virtio.VirtioException;
import io.jslirp.virtio.Virtqueue;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BackendTest {
    static final long FEATURES = bit(Features.VERSION_1) | bit(Features.NET_MRG_RXBUF) | bit(Features.RING_EVENT_IDX) | bit(Features.RING_INDIRECT_DESC);
    static final long PROTOCOL = bit(Features.PROTOCOL_REPLY_ACK) | bit(Features.PROTOCOL_MQ);
    private final Frontend f = new Frontend(new Backend.Offer(FEATURES, PROTOCOL, 2));

    @AfterEach
    void close() {
        f.close();
    }

    private void refusedWith(Outcome o, String why) {
        assertThat(o.error()).contains(why);
        assertThat(o.replyLength()).isZero();
    }

    /** Every descriptor given is closed exactly once, once the connection is closed. */
    private void everyDescriptorClosedOnce() {
        f.perform(f.backend.close());
        assertThat(f.closed).containsExactlyInAnyOrderElementsOf(f.given);
    }

    @Test
    void negotiatesAsQemuDoes() throws ProtocolException {
        f.simple(Request.GET_FEATURES, 0);
        assertThat(Le.u32(f.last.reply(), 0)).isEqualTo(Request.GET_FEATURES.code());
        assertThat(Le.u32(f.last.reply(), 4)).isEqualTo(Message.VERSION | Message.FLAG_REPLY);
        assertThat(Le.u32(f.last.reply(), 8)).isEqualTo(8);
        assertThat(f.reply64()).isEqualTo(FEATURES | bit(Features.PROTOCOL_FEATURES));
        f.simple(Request.GET_PROTOCOL_FEATURES, 0);
        assertThat(f.reply64()).isEqualTo(PROTOCOL);
        f.u64(Request.SET_PROTOCOL_FEATURES, PROTOCOL);
        assertThat(f.last.replyLength()).as("no reply asked").isZero();
        f.simple(Request.GET_QUEUE_NUM, 0);
        assertThat(f.reply64()).isEqualTo(2);
        f.simple(Request.SET_OWNER, Message.FLAG_NEED_REPLY);
        assertThat(f.last.replyLength()).as("REPLY_ACK").isEqualTo(Message.HEADER + 8);
        assertThat(f.reply64()).isZero();
        f.u64(Request.SET_FEATURES, FEATURES | bit(Features.PROTOCOL_FEATURES));
        assertThat(f.backend.features()).isEqualTo(FEATURES | bit(Features.PROTOCOL_FEATURES));
        assertThat(f.last.error()).isNull();
    }

    @Test
    void noAckWithoutReplyAckNegotiated() throws ProtocolException {
        f.simple(Request.SET_OWNER, Message.FLAG_NEED_REPLY);
        assertThat(f.last.replyLength()).isZero();
    }

    @Test
    void aRingStartsOnceMemorySizeAddressesKickAndEnableAreKnown() throws ProtocolException {
        f.negotiate();
        f.memory();
        assertThat(f.actions).anyMatch(a -> a instanceof Action.MapMemory m && m.fds().length == 1 && m.table().region(0).guestAddress() == Frontend.GPA);
        f.state(Request.SET_VRING_NUM, 0, 256);
        f.state(Request.SET_VRING_BASE, 0, 0);
        f.addr(0);
        int kick = f.fd();
        f.u64(Request.SET_VRING_KICK, 0, kick);
        assertThat(f.last.actions()).containsExactly(new Action.Kick(0, kick));
        assertThat(f.backend.running(0)).as("not enabled yet").isFalse();
        f.state(Request.SET_VRING_ENABLE, 0, 1);
        assertThat(f.last.actions()).containsExactly(new Action.StartRing(0));
        assertThat(f.backend.queue(0).size()).isEqualTo(256);
        assertThat(f.backend.running(1)).isFalse();
        everyDescriptorClosedOnce();
        assertThat(f.actions).contains(new Action.StopRing(0), new Action.UnmapMemory());
    }

    /** The started queue reads the rings where the front-end's user addresses put them, and the buffers by guest address. */
    @Test
    void aStartedRingCarriesChainsThroughGuestMemory() throws ProtocolException, VirtioException {
        f.negotiate();
        f.memory();
        f.ring(0, 8);
        long desc = 0x10_0000, avail = desc + 0x1_0000, used = desc + 0x2_0000, data = 0x30_0000; // offsets in the region (Frontend.addr)
        Le.u64(f.guest, desc, Frontend.GPA + data);
        Le.u32(f.guest, desc + 8, 5);
        Le.u16(f.guest, avail + 4, 0);
        Le.u16(f.guest, avail + 2, 1);
        for (int i = 0; i < 5; i++) f.guest.set(ValueLayout.JAVA_BYTE, data + i, (byte) (i + 1));
        Virtqueue q = f.backend.queue(0);
        Chain c = q.pop();
        assertThat(c.head()).isZero();
        assertThat(c.readableBytes()).isEqualTo(5);
        assertThat(c.segment(0).address()).isEqualTo(f.guest.address());
        assertThat(c.offset(0)).isEqualTo(data);
        q.push(c.head(), 0);
        q.publish();
        assertThat(Le.u16(f.guest, used + 2)).isEqualTo(1);
        f.state(Request.GET_VRING_BASE, 0, 0);
        assertThat(Le.u32(f.last.reply(), Message.HEADER + 4)).as("where the device got to").isEqualTo(1);
    }

    @Test
    void withoutProtocolFeaturesARingNeedsNoEnabling() throws ProtocolException {
        f.u64(Request.SET_FEATURES, FEATURES);
        f.memory();
        f.state(Request.SET_VRING_NUM, 1, 64);
        f.addr(1);
        f.u64(Request.SET_VRING_KICK, 1 | Message.NO_FD);
        assertThat(f.last.actions()).containsExactly(new Action.Kick(1, -1), new Action.StartRing(1));
    }

    @Test
    void getVringBaseStopsTheRingAndSaysWhereItGotTo() throws ProtocolException {
        f.negotiate();
        f.memory();
        f.state(Request.SET_VRING_NUM, 0, 16);
        f.state(Request.SET_VRING_BASE, 0, 65530);
        f.addr(0);
        f.u64(Request.SET_VRING_KICK, 0, f.fd());
        f.state(Request.SET_VRING_ENABLE, 0, 1);
        assertThat(f.backend.queue(0).lastAvail()).isEqualTo(65530);
        f.state(Request.GET_VRING_BASE, 0, 0);
        assertThat(f.last.actions()).containsExactly(new Action.StopRing(0));
        assertThat(Le.u32(f.last.reply(), Message.HEADER)).isZero();
        assertThat(Le.u32(f.last.reply(), Message.HEADER + 4)).isEqualTo(65530);
        assertThat(f.backend.queue(0)).isNull();
        f.u64(Request.SET_VRING_KICK, 0, f.fd());
        assertThat(f.last.actions()).as("a new kick restarts it, the old descriptor closed").hasSize(3).contains(new Action.StartRing(0));
        everyDescriptorClosedOnce();
    }

    @Test
    void aNewMemoryTableRestartsRunningRingsWhereTheyWere() throws ProtocolException {
        f.negotiate();
        f.memory();
        f.ring(0, 8);
        f.memory();
        List<Action> a = f.last.actions();
        assertThat(a.get(0)).isEqualTo(new Action.StopRing(0));
        assertThat(a.get(1)).isEqualTo(new Action.UnmapMemory());
        assertThat(a.get(2)).isInstanceOf(Action.MapMemory.class);
        assertThat(f.actions.getLast()).isEqualTo(new Action.StartRing(0));
        assertThat(f.backend.queue(0)).isNotNull();
        everyDescriptorClosedOnce();
    }

    @Test
    void setMemTableWithReplyAckStillRepliesAfterMapping() throws ProtocolException {
        f.negotiate();
        f.send(Encoder.memoryTable(f.buffer, Message.FLAG_NEED_REPLY, new long[] {Frontend.GPA, Frontend.SIZE, Frontend.UVA, 0}), f.fd());
        assertThat(f.last.replyLength()).isEqualTo(Message.HEADER + 8);
        assertThat(f.last.actions()).hasSize(1).first().isInstanceOf(Action.MapMemory.class);
    }

    // hostile front-ends: each gets an error that releases everything, and every descriptor closed once

    @Test
    void overlappingRegionsAreRefused() throws ProtocolException {
        f.negotiate();
        Outcome o = f.send(Encoder.memoryTable(f.buffer, 0, new long[] {0, 0x10000, 0x7f00_0000_0000L, 0}, new long[] {0x8000, 0x10000, 0x7f10_0000_0000L, 0}), f.fd(), f.fd());
        refusedWith(o, "overlap in guest addresses");
        assertThat(o.actions()).noneMatch(a -> a instanceof Action.MapMemory);
        everyDescriptorClosedOnce();
    }

    @Test
    void regionsAndDescriptorsMustMatch() throws ProtocolException {
        refusedWith(f.send(Encoder.memoryTable(f.buffer, 0, new long[] {0, 0x10000, 0x7f00_0000_0000L, 0}), f.fd(), f.fd()), "1 regions with 2 descriptors");
        everyDescriptorClosedOnce();
    }

    @Test
    void anMmapOffsetPastAnyFileIsRefused() throws ProtocolException {
        refusedWith(f.send(Encoder.memoryTable(f.buffer, 0, new long[] {0, 0x10000, 0x7f00_0000_0000L, Long.MAX_VALUE - 10}), f.fd()), "runs past any file");
        everyDescriptorClosedOnce();
    }

    @Test
    void aRingBeyondTheQueuesOfferedIsRefused() throws ProtocolException {
        f.negotiate();
        refusedWith(f.state(Request.SET_VRING_NUM, 4, 256), "ring 4, beyond the 4 rings");
        refusedWith(f.u64(Request.SET_VRING_CALL, 200, f.fd()), "ring 200");
        everyDescriptorClosedOnce();
    }

    @Test
    void setVringAddrBeforeSetMemTableIsRefused() throws ProtocolException {
        f.negotiate();
        f.state(Request.SET_VRING_NUM, 0, 256);
        refusedWith(f.addr(0), "SET_VRING_ADDR before SET_MEM_TABLE");
    }

    @Test
    void ringAddressesOutsideGuestMemoryAreRefused() throws ProtocolException {
        f.negotiate();
        f.memory();
        refusedWith(f.send(Encoder.addr(f.buffer, 0, 0, Frontend.UVA - 4096, Frontend.UVA, Frontend.UVA)), "outside guest memory");
        everyDescriptorClosedOnce();
    }

    @Test
    void aRingThatRunsPastItsRegionIsRefusedWhenItWouldStart() throws ProtocolException {
        f.negotiate();
        f.memory();
        f.state(Request.SET_VRING_NUM, 0, 32768);
        long end = Frontend.UVA + Frontend.SIZE - 4096; // the descriptor table of 512 KiB does not fit in the last 4 KiB
        f.send(Encoder.addr(f.buffer, 0, 0, end, Frontend.UVA, Frontend.UVA + 0x10000));
        refusedWith(f.u64(Request.SET_VRING_KICK, 0, f.fd()), "does not fit in guest memory");
        everyDescriptorClosedOnce();
    }

    @Test
    void aRingSizeNotAPowerOfTwoIsRefused() throws ProtocolException {
        refusedWith(f.state(Request.SET_VRING_NUM, 0, 1000), "not a power of two");
        refusedWith(f.state(Request.SET_VRING_NUM, 0, 65536), "not a power of two");
        refusedWith(f.state(Request.SET_VRING_NUM, 0, -1), "not a power of two");
    }

    @Test
    void featuresNotOfferedAreRefused() throws ProtocolException {
        refusedWith(f.u64(Request.SET_FEATURES, FEATURES | bit(Features.NET_HOST_TSO4)), "not offered");
        refusedWith(f.u64(Request.SET_FEATURES, bit(Features.NET_MRG_RXBUF)), "without VERSION_1");
        refusedWith(f.u64(Request.SET_PROTOCOL_FEATURES, bit(Features.PROTOCOL_CONFIG)), "not offered");
    }

    @Test
    void requestsNotServedAreRefused() throws ProtocolException {
        refusedWith(f.send(Encoder.raw(f.buffer, Request.GET_CONFIG.code(), Message.VERSION, new byte[12])), "GET_CONFIG is not served");
        refusedWith(f.simple(Request.GET_MAX_MEM_SLOTS, 0), "not served");
        refusedWith(f.send(Encoder.raw(f.buffer, Request.SET_LOG_BASE.code(), Message.VERSION, new byte[16]), f.fd()), "not served");
        everyDescriptorClosedOnce();
    }

    @Test
    void aKickSayingNoDescriptorWithOneIsRefused() throws ProtocolException {
        refusedWith(f.u64(Request.SET_VRING_KICK, Message.NO_FD, f.fd()), "saying none");
        refusedWith(f.u64(Request.SET_VRING_KICK, 0), "with 0 descriptors");
        refusedWith(f.u64(Request.SET_VRING_KICK, 1L << 9, f.fd()), "unknown bits");
        everyDescriptorClosedOnce();
    }

    @Test
    void aRingsLayoutCannotChangeWhileItIsStarted() throws ProtocolException {
        f.negotiate();
        f.memory();
        f.ring(0, 8);
        refusedWith(f.state(Request.SET_VRING_NUM, 0, 16), "while it is started");
        assertThat(f.last.actions()).contains(new Action.StopRing(0), new Action.UnmapMemory());
        everyDescriptorClosedOnce();
    }

    @Test
    void anErrorReleasesEverythingHeld() throws ProtocolException {
        f.negotiate();
        f.memory();
        f.ring(0, 8);
        f.ring(1, 8);
        refusedWith(f.state(Request.SET_VRING_ENABLE, 0, 2), "not 0 or 1");
        assertThat(f.last.actions()).contains(new Action.StopRing(0), new Action.StopRing(1), new Action.UnmapMemory());
        assertThat(f.closed).containsExactlyInAnyOrderElementsOf(f.given);
        assertThat(f.backend.queue(0)).isNull();
    }
}
