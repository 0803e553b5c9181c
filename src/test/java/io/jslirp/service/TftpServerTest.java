package io.jslirp.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.jslirp.loop.EventLoop;
import io.jslirp.loop.Timer;
import io.jslirp.stack.Counters;
import io.jslirp.stack.NetworkConfig;
import io.jslirp.stack.Stack;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Tftp;
import io.jslirp.wire.TftpMessages;
import io.jslirp.wire.Udp;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The TFTP server's lock step, retransmission and bounds, with the stack's frames captured in memory. */
class TftpServerTest {
    private static final int GUEST = Ipv4.parse("10.0.2.100");
    private static final long UDP = (14 + 20);

    @TempDir
    Path dir;
    private final EventLoop loop = new EventLoop();
    /** What the server sent: "port opcode block-or-code length". */
    private final List<String> sent = new ArrayList<>();
    private TftpServer server;
    private Stack stack;

    @BeforeEach
    void setUp() throws Exception {
        Files.write(dir.resolve("f"), new byte[1300]); // blocks of 512, 512, 276
        stack = new Stack(NetworkConfig.defaults(), (frame, length) -> {
            int payload = Udp.length(frame, UDP) - Udp.HEADER_LENGTH;
            sent.add(Udp.destinationPort(frame, UDP) + " " + Tftp.opcode(frame, stack.ipv4().udpPayloadOffset(), payload) + " "
                    + Tftp.block(frame, stack.ipv4().udpPayloadOffset()) + " " + payload);
            return true;
        }, new Counters());
        server = new TftpServer(loop, stack.ipv4(), new TftpFiles(dir));
    }

    @AfterEach
    void tearDown() {
        server.closeAll();
        loop.close();
    }

    private void receive(int port, int opcode, String... strings) {
        byte[] m = TftpMessages.of(opcode, strings);
        server.datagram(MemorySegment.ofArray(m), 0, m.length, stack.addresses().acquire4(GUEST), port);
    }

    private void ack(int port, int block) {
        server.datagram(MemorySegment.ofArray(new byte[] {0, 4, (byte) (block >> 8), (byte) block}), 0, 4, stack.addresses().acquire4(GUEST), port);
    }

    @Test
    void sendsBlockAfterBlockInLockStepAndIgnoresDuplicateAcks() {
        receive(1000, Tftp.RRQ, "f", "octet");
        assertThat(sent).containsExactly("1000 3 1 516");
        ack(1000, 1);
        ack(1000, 1); // a duplicate must not send block 2 again
        assertThat(sent).containsExactly("1000 3 1 516", "1000 3 2 516");
        ack(1000, 2);
        assertThat(sent).last().isEqualTo("1000 3 3 280");
        ack(1000, 3);
        ack(1000, 3); // the transfer is over: nothing more
        assertThat(sent).hasSize(3);
    }

    @Test
    void negotiatesOptionsWithAnOackFirst() {
        receive(1000, Tftp.RRQ, "f", "octet", "blksize", "9000", "tsize", "0");
        assertThat(sent).containsExactly("1000 6 " + ('b' << 8 | 'l') + " 26"); // "blksize\01472\0tsize\01300\0"
        ack(1000, 0);
        assertThat(sent).last().as("one block of at most MTU - 32 bytes").isEqualTo("1000 3 1 1304");
    }

    @Test
    void refusesWritesAndUnknownModes() {
        receive(1000, Tftp.WRQ, "f", "octet");
        receive(1001, Tftp.RRQ, "f", "mail");
        assertThat(sent).containsExactly("1000 5 " + Tftp.ERR_ACCESS + " 21", "1001 5 " + Tftp.ERR_ILLEGAL + " 20");
    }

    @Test
    void boundsConcurrentTransfers() {
        for (int i = 0; i < TftpServer.MAX_TRANSFERS + 1; i++) receive(2000 + i, Tftp.RRQ, "f", "octet");
        assertThat(sent).hasSize(TftpServer.MAX_TRANSFERS + 1);
        assertThat(sent.getLast()).startsWith((2000 + TftpServer.MAX_TRANSFERS) + " 5 " + Tftp.ERR_UNDEFINED);
        ack(2000, 1);
        ack(2000, 2);
        ack(2000, 3); // one transfer done frees its place
        receive(3000, Tftp.RRQ, "f", "octet");
        assertThat(sent.getLast()).isEqualTo("3000 3 1 516");
    }

    @Test
    void retransmitsAnUnacknowledgedBlockAfterTheTimeout() {
        receive(1000, Tftp.RRQ, "f", "octet");
        Timer stop = new Timer(loop::stop);
        loop.schedule(stop, EventLoop.now() + TftpServer.RETRANSMIT_NANOS + TftpServer.RETRANSMIT_NANOS / 2);
        loop.run();
        assertThat(sent).containsExactly("1000 3 1 516", "1000 3 1 516");
    }
}
