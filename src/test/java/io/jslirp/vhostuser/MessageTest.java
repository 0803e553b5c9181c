package io.jslirp.vhostuser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jslirp.virtio.Le;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MessageTest {
    private final Arena arena = Arena.ofConfined();
    private final MemorySegment buf = arena.allocate(Message.HEADER + Message.MAX_PAYLOAD + 64);
    private final Message m = new Message();

    @AfterEach
    void close() {
        arena.close();
    }

    @Test
    void requestNumbersAreTheSpecificationsAndUnique() {
        assertThat(Request.GET_FEATURES.code()).isEqualTo(1);
        assertThat(Request.SET_MEM_TABLE.code()).isEqualTo(5);
        assertThat(Request.SET_VRING_NUM.code()).isEqualTo(8);
        assertThat(Request.GET_VRING_BASE.code()).isEqualTo(11);
        assertThat(Request.SET_VRING_ERR.code()).isEqualTo(14);
        assertThat(Request.GET_QUEUE_NUM.code()).isEqualTo(17);
        assertThat(Request.SET_VRING_ENABLE.code()).isEqualTo(18);
        assertThat(Request.GET_CONFIG.code()).isEqualTo(24);
        assertThat(Request.RESET_DEVICE.code()).isEqualTo(34);
        assertThat(Request.GET_MAX_MEM_SLOTS.code()).isEqualTo(36);
        for (Request r : Request.values()) assertThat(Request.of(r.code())).isSameAs(r);
        assertThat(Request.of(0)).isNull();
        assertThat(Request.of(44)).isNull();
        assertThat(Request.of(-1)).isNull();
    }

    @Test
    void decodesTheHeaderAndEachPayloadKind() throws ProtocolException {
        int len = Encoder.u64(buf, Request.SET_FEATURES, Message.FLAG_NEED_REPLY, 0x1_4000_8000L);
        assertThat(len).isEqualTo(20);
        assertThat(Le.u32(buf, 4)).isEqualTo(Message.VERSION | Message.FLAG_NEED_REPLY);
        m.decode(buf, len);
        assertThat(m.request()).isEqualTo(Request.SET_FEATURES);
        assertThat(m.needsReply()).isTrue();
        assertThat(m.u64()).isEqualTo(0x1_4000_8000L);

        m.decode(buf, Encoder.state(buf, Request.SET_VRING_NUM, 0, 3, 1024));
        assertThat(m.ringIndex()).isEqualTo(3);
        assertThat(m.ringNum()).isEqualTo(1024);
        assertThat(m.needsReply()).isFalse();

        m.decode(buf, Encoder.addr(buf, 0, 1, 0x1000, 0x3000, 0x2000));
        assertThat(m.ringIndex()).isEqualTo(1);
        assertThat(m.descAddress()).isEqualTo(0x1000);
        assertThat(m.usedAddress()).isEqualTo(0x3000);
        assertThat(m.availAddress()).isEqualTo(0x2000);

        m.decode(buf, Encoder.memoryTable(buf, 0, new long[] {0, 0xa_0000, 0x7f00_0000_0000L, 0}, new long[] {0x10_0000, 0x100_0000, 0x7f00_1000_0000L, 0x10_0000}));
        assertThat(m.regions()).isEqualTo(2);
        assertThat(m.regionGuestAddress(1)).isEqualTo(0x10_0000);
        assertThat(m.regionSize(1)).isEqualTo(0x100_0000);
        assertThat(m.regionUserAddress(1)).isEqualTo(0x7f00_1000_0000L);
        assertThat(m.regionMmapOffset(1)).isEqualTo(0x10_0000);

        byte[] log = new byte[16];
        log[0] = 0x10;
        log[8] = 0x20;
        m.decode(buf, Encoder.raw(buf, Request.SET_LOG_BASE.code(), Message.VERSION, log));
        assertThat(m.logSize()).isEqualTo(0x10);
        assertThat(m.logOffset()).isEqualTo(0x20);

        byte[] config = new byte[12 + 6];
        config[0] = 4;
        config[4] = 6;
        m.decode(buf, Encoder.raw(buf, Request.GET_CONFIG.code(), Message.VERSION, config));
        assertThat(m.configOffset()).isEqualTo(4);
        assertThat(m.configSize()).isEqualTo(6);
    }

    private void refused(int len, String why) {
        assertThatThrownBy(() -> m.decode(buf, len)).isInstanceOf(ProtocolException.class).hasMessageContaining(why);
    }

    @Test
    void refusesWhatTheWireFormatDoesNotAllow() {
        refused(Encoder.raw(buf, 99, Message.VERSION, new byte[0]), "unknown request 99");
        refused(Encoder.raw(buf, -1, Message.VERSION, new byte[0]), "unknown request 4294967295");
        refused(Encoder.raw(buf, Request.SET_FEATURES.code(), Message.VERSION, new byte[4]), "expected 8");
        refused(Encoder.raw(buf, Request.GET_FEATURES.code(), Message.VERSION, new byte[8]), "expected none");
        refused(Encoder.raw(buf, Request.SET_VRING_ADDR.code(), Message.VERSION, new byte[32]), "expected 40");
        refused(Encoder.raw(buf, Request.GET_FEATURES.code(), 2, new byte[0]), "version 2");
        refused(Encoder.raw(buf, Request.GET_FEATURES.code(), 0, new byte[0]), "version 0");
        refused(Encoder.raw(buf, Request.GET_FEATURES.code(), Message.VERSION | Message.FLAG_REPLY, new byte[0]), "a reply");
        refused(Encoder.raw(buf, Request.SET_OWNER.code(), Message.VERSION, new byte[Message.MAX_PAYLOAD + 1]), "more than");
        refused(Encoder.empty(buf, Request.GET_FEATURES, 0) - 1, "shorter than its header");
        refused(Encoder.u64(buf, Request.SET_FEATURES, 0, 1) + 4, "its header says");
    }

    @Test
    void refusesMemoryTablesOfNoneOrMoreThanEightRegionsOrTheWrongSize() {
        long[][] nine = new long[9][];
        for (int i = 0; i < 9; i++) nine[i] = new long[] {0x10_0000L * i, 0x1000, 0x7f00_0000_0000L + 0x10_0000L * i, 0};
        refused(Encoder.memoryTable(buf, 0, nine), "9 regions");
        refused(Encoder.memoryTable(buf, 0), "0 regions");
        int len = Encoder.memoryTable(buf, 0, nine[0], nine[1]);
        Le.u32(buf, Message.HEADER, 3); // says three, carries two
        refused(len, "for 3 regions");
        refused(Encoder.raw(buf, Request.SET_MEM_TABLE.code(), Message.VERSION, new byte[4]), "shorter than the region count");
        byte[] config = new byte[12 + 4];
        config[4] = 8; // says 8 bytes, carries 4
        refused(Encoder.raw(buf, Request.SET_CONFIG.code(), Message.VERSION, config), "config of 8 bytes");
    }
}
