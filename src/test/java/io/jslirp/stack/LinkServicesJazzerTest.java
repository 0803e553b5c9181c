package io.jslirp.stack;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jslirp.check.Seeds;
import io.jslirp.loop.EventLoop;
import io.jslirp.service.TftpFiles;
import io.jslirp.service.TftpServer;
import io.jslirp.wire.Dhcp;
import io.jslirp.wire.Dhcpv6;
import io.jslirp.wire.Ethernet;
import io.jslirp.wire.Ipv4;
import io.jslirp.wire.Ndp;
import io.jslirp.wire.Tftp;
import io.jslirp.wire.TftpMessages;
import io.jslirp.wire.build.FrameBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided: the guest's messages to the link services, each wrapped in a frame whose
 * headers and checksums are right so that the fuzzer's bytes all go to the service: DHCPv4 to
 * the broadcast address, DHCPv6 to All_DHCP_Relay_Agents_and_Servers, ICMPv6 to the all-routers
 * address (Router and Neighbor Solicitations with their options), and TFTP datagrams to the TFTP
 * server of a directory with one file. An input is records ({@link Seeds#records}): a kind byte
 * (low two bits: DHCPv4, DHCPv6, ICMPv6 as type, code and 4 bytes, TFTP; the rest: seconds the
 * clock moves on) and the message. Nothing throws, every frame is counted in, each message is
 * dropped for a counted reason or handed on at most once (the TFTP server counts the malformed
 * datagrams it drops), and every reply is well formed ({@link StackFuzzTest.Harness}).
 */
class LinkServicesJazzerTest {
    private static final int GUEST = Ipv4.parse("10.0.2.100");
    private static final Path TFTP_ROOT = tftpRoot();

    @FuzzTest(maxDuration = "4s")
    void servicesAnswerAnyRequestWithWellFormedFrames(byte[] input) throws IOException {
        StackFuzzTest.Harness h = new StackFuzzTest.Harness();
        long[] now = {1_000_000_000L};
        h.stack.setClock(() -> now[0]);
        List<byte[]> records = Seeds.records(input);
        long frames = 0, datagrams = 0;
        try (EventLoop loop = new EventLoop()) {
            TftpServer tftp = new TftpServer(loop, h.stack.ipv4(), new TftpFiles(TFTP_ROOT));
            int guest = h.addresses.acquire4(GUEST);
            for (byte[] r : records) {
                int kind = r.length > 0 ? r[0] & 0xff : 0;
                now[0] += (kind >>> 2) * 1_000_000_000L;
                byte[] m = r.length > 0 ? Arrays.copyOfRange(r, 1, r.length) : r;
                long before = h.accounted();
                if ((kind & 3) == 3) {
                    tftp.datagram(MemorySegment.ofArray(m), 0, m.length, guest, 1000 + (kind >>> 2));
                    datagrams++;
                } else {
                    MemorySegment f = frame(kind & 3, m).build();
                    h.stack.receive(f, (int) f.byteSize(), false);
                    frames++;
                }
                assertThat(h.accounted() - before).as("a message dropped or handed on at most once").isLessThanOrEqualTo(1);
            }
            tftp.closeAll();
            h.addresses.release(guest);
        }
        h.checkAccounting(frames, datagrams);
    }

    private static FrameBuilder frame(int kind, byte[] m) {
        return switch (kind) {
            case 0 -> FrameBuilder.v4(0, -1).macs(FrameBuilder.GUEST_MAC, Ethernet.BROADCAST).udp(Dhcp.CLIENT_PORT, Dhcp.SERVER_PORT).payload(m);
            case 1 -> FrameBuilder.v6(new long[] {0xfe80L << 48, 0x1_0002_0003_0004L}, new long[] {Dhcpv6.SERVERS_HI, Dhcpv6.SERVERS_LO})
                    .udp(Dhcpv6.CLIENT_PORT, Dhcpv6.SERVER_PORT).payload(m);
            default -> {
                byte[] head = Arrays.copyOf(m, 6);
                int rest = (head[2] & 0xff) << 24 | (head[3] & 0xff) << 16 | (head[4] & 0xff) << 8 | head[5] & 0xff;
                yield FrameBuilder.v6("fe80::1:2:3:4", "ff02::2").ttl(255).icmp(head[0] & 0xff, head[1] & 0xff, rest)
                        .payload(m.length > 6 ? Arrays.copyOfRange(m, 6, m.length) : new byte[0]);
            }
        };
    }

    private static Path tftpRoot() {
        try {
            Path root = Files.createTempDirectory("jslirp-tftp-fuzz");
            Files.write(root.resolve("pxelinux.0"), new byte[1300]);
            root.toFile().deleteOnExit();
            root.resolve("pxelinux.0").toFile().deleteOnExit();
            return root;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A DHCP discover and request, a DHCPv6 solicit, a Router and a Neighbor Solicitation, a TFTP read with options and its acks. */
    @Test
    @EnabledIfSystemProperty(named = Seeds.WRITE, matches = "true")
    void writeSeeds() {
        Map<String, byte[]> seeds = new TreeMap<>();
        seeds.put("dhcp-discover-request", Seeds.records(List.of(record(0, dhcp(Dhcp.DISCOVER)), record(4, dhcp(Dhcp.REQUEST)))));
        byte[] solicit = {Dhcpv6.SOLICIT, 1, 2, 3, 0, 1, 0, 10, 0, 3, 0, 1, 2, 0, 0, 0, 0, 1, 0, 8, 0, 2, 0, 0};
        seeds.put("dhcpv6-solicit", Seeds.records(List.of(record(1, solicit))));
        byte[] info = {Dhcpv6.INFORMATION_REQUEST, 9, 9, 9, 0, 6, 0, 4, 0, 23, 0, 24};
        seeds.put("dhcpv6-information-request", Seeds.records(List.of(record(1, info))));
        seeds.put("router-solicitation", Seeds.records(List.of(record(2, new byte[] {(byte) Ndp.ROUTER_SOLICITATION, 0, 0, 0, 0, 0,
                1, 1, 2, 0, 0, 0, 0, 1}))));
        byte[] ns = new byte[6 + 16 + 8];
        ns[0] = (byte) Ndp.NEIGHBOR_SOLICITATION;
        ns[6] = (byte) 0xfe;
        ns[7] = (byte) 0x80;
        ns[21] = 2;
        ns[22] = 1;
        ns[23] = 1;
        seeds.put("neighbor-solicitation", Seeds.records(List.of(record(2, ns))));
        List<byte[]> tftp = new ArrayList<>();
        tftp.add(record(3, TftpMessages.of(Tftp.RRQ, "pxelinux.0", "octet", "blksize", "512", "tsize", "0")));
        for (int block = 0; block <= 3; block++) tftp.add(record(3, new byte[] {0, 4, 0, (byte) block}));
        seeds.put("tftp-read", Seeds.records(tftp));
        seeds.put("tftp-missing", Seeds.records(List.of(record(3, TftpMessages.of(Tftp.RRQ, "../secret", "netascii")),
                record(3, TftpMessages.of(Tftp.WRQ, "x", "octet")))));
        Seeds.write(getClass(), "servicesAnswerAnyRequestWithWellFormedFrames", seeds);
    }

    private static byte[] dhcp(int type) {
        byte[] d = new byte[Dhcp.FIXED_LENGTH + 16];
        d[0] = (byte) Dhcp.OP_REQUEST;
        d[1] = 1;
        d[2] = 6;
        d[4] = 0x12;
        System.arraycopy(new byte[] {0x02, 0, 0, 0, 0, 1}, 0, d, 28, 6);
        System.arraycopy(new byte[] {0x63, (byte) 0x82, 0x53, 0x63}, 0, d, 236, 4);
        byte[] options = {(byte) Dhcp.OPT_MESSAGE_TYPE, 1, (byte) type, (byte) Dhcp.OPT_REQUESTED_IP, 4, 10, 0, 2, 15, 55, 3, 1, 3, 6, (byte) 255};
        System.arraycopy(options, 0, d, 240, options.length);
        return d;
    }

    private static byte[] record(int kind, byte[] message) {
        byte[] r = new byte[1 + message.length];
        r[0] = (byte) kind;
        System.arraycopy(message, 0, r, 1, message.length);
        return r;
    }
}
