package io.jslirp.pasta;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** pasta's control protocol against exchanges recorded between passt's own pasta and pesto (src/test/resources/pesto). */
class ControlProtocolTest {
    private static final Set<Integer> TABLES = Set.of(ControlProtocol.PIF_HOST, ControlProtocol.PIF_SPLICE);

    /** The bytes of one side of a recorded exchange, in order. */
    static byte[] side(String file, char who) throws IOException {
        try (InputStream in = ControlProtocolTest.class.getResourceAsStream("/pesto/" + file)) {
            assertThat(in).as(file).isNotNull();
            ByteBuffer out = ByteBuffer.allocate(1 << 20);
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                if (line.length() > 2 && line.charAt(0) == who) out.put(HexFormat.of().parseHex(line.substring(2)));
            }
            return Arrays.copyOf(out.array(), out.position());
        }
    }

    /** The tables of a server's greeting, as pesto reads them. */
    private static List<ControlProtocol.Table> readGreeting(byte[] g) {
        ByteBuffer b = ByteBuffer.wrap(g);
        byte[] magic = new byte[8];
        b.get(magic);
        assertThat(new String(magic, StandardCharsets.US_ASCII)).isEqualTo("basil:s\0");
        assertThat(b.getInt()).as("version").isEqualTo(2);
        assertThat(b.getInt()).as("name size").isEqualTo(128);
        assertThat(b.getInt()).as("IFNAMSIZ").isEqualTo(16);
        List<ControlProtocol.Table> tables = new ArrayList<>();
        for (int pif; (pif = b.get() & 0xff) != 0; ) {
            byte[] name = new byte[128];
            b.get(name);
            int caps = b.getInt(), count = b.getInt();
            List<ForwardRule> rules = new ArrayList<>();
            for (int i = 0; i < count; i++) rules.add(ForwardRule.read(b));
            tables.add(new ControlProtocol.Table(pif, new String(name, StandardCharsets.US_ASCII).replace("\0", ""), caps, rules));
        }
        assertThat(b.hasRemaining()).as("bytes after the end mark").isFalse();
        return tables;
    }

    private static List<String> texts(List<ForwardRule> rules) {
        return rules.stream().map(ForwardRule::toString).toList();
    }

    private static List<ForwardRule> update(String file, int pif) throws IOException {
        byte[] c = side(file, 'c');
        ControlProtocol.Update u = ControlProtocol.parseUpdate(c, c.length, TABLES);
        assertThat(u).as(file).isInstanceOf(ControlProtocol.Complete.class);
        return ((ControlProtocol.Complete) u).tables().get(pif);
    }

    @Test
    void pastasTablesAreReadAsPestoPrintsThem() throws IOException {
        List<ControlProtocol.Table> tables = readGreeting(side("list.hex", 's'));
        assertThat(tables).extracting(ControlProtocol.Table::pif, ControlProtocol.Table::name)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, "HOST"), org.assertj.core.groups.Tuple.tuple(3, "SPLICE"));
        // pesto's own listing of this exchange: "TCP [*]:8080  =>  8080 " and so on
        assertThat(texts(tables.getFirst().rules())).containsExactly("TCP [*]:8080  =>  8080 ", "TCP [*]:9000-9002  =>  10000-10002 ",
                "UDP [*]:5353  =>  5353 ");
        assertThat(tables.get(1).rules()).isEmpty();
    }

    @Test
    void aGreetingOfTheSameTablesIsByteForBytePastas() throws IOException {
        byte[] pasta = side("list.hex", 's');
        List<ControlProtocol.Table> tables = readGreeting(pasta);
        assertThat(ControlProtocol.greeting(tables)).isEqualTo(pasta);
    }

    @Test
    void theTablesOfPastasOptionsAreTheRulesPastaMakesOfThem() throws IOException {
        List<ControlProtocol.Table> pasta = readGreeting(side("list.hex", 's'));
        PastaOptions o = ((PastaOptions.Serve) PastaOptions.parse("pasta", List.of("--config-net", "-t", "8080,9000-9002:10000-10002",
                "-u", "5353", "-T", "none", "-U", "none", "--netns", "x"), PortSpec.Ephemeral.DEFAULT, "test")).options();
        List<ForwardRule> ours = new ArrayList<>(RuleTable.of(o.tcp(), ForwardRule.TCP, null, PortSpec.Ephemeral.DEFAULT));
        ours.addAll(RuleTable.of(o.udp(), ForwardRule.UDP, null, PortSpec.Ephemeral.DEFAULT));
        assertThat(ours).isEqualTo(pasta.getFirst().rules());
        assertThat(RuleTable.of(o.tcpNs(), ForwardRule.TCP, null, PortSpec.Ephemeral.DEFAULT)).isEmpty();
    }

    @Test
    void pestosUpdatesAreTheWholeNewTables() throws IOException {
        assertThat(texts(update("add.hex", ControlProtocol.PIF_HOST))).containsExactly("TCP [*]:8080  =>  8080 ",
                "TCP [*]:9000-9002  =>  10000-10002 ", "UDP [*]:5353  =>  5353 ", "TCP [*]:7070  =>  7070 ",
                "UDP [127.0.0.1]:6060  =>  6061 ");
        assertThat(update("add.hex", ControlProtocol.PIF_SPLICE)).isEmpty();
        assertThat(texts(update("delete.hex", ControlProtocol.PIF_HOST))).containsExactly("TCP [*]:8080  =>  8080 ",
                "TCP [*]:9000-9002  =>  10000-10002 ", "UDP [*]:5353  =>  5353 ", "UDP [127.0.0.1]:6060  =>  6061 ");
        assertThat(texts(update("replace.hex", ControlProtocol.PIF_HOST))).containsExactly("TCP [::1]:8081  =>  8081 ",
                "TCP [127.0.0.1]%lo:8082  =>  80 ", "UDP [*]:4000-4002  =>  4000-4002 ");
        assertThat(update("clear.hex", ControlProtocol.PIF_HOST)).isEmpty();
        byte[] listOnly = side("list-empty.hex", 'c');
        assertThat(listOnly).as("a client that only lists sends nothing").isEmpty();
    }

    @Test
    void theRulesPestoSentAreTheTablesPastaThenListed() throws IOException {
        // pasta's greeting on the next connection holds what the previous one sent
        assertThat(readGreeting(side("delete.hex", 's')).getFirst().rules()).isEqualTo(update("add.hex", ControlProtocol.PIF_HOST));
        assertThat(readGreeting(side("list-empty.hex", 's')).getFirst().rules()).isEmpty();
    }

    @Test
    void everyPartOfAnUpdateIsIncompleteAndNeverMore() throws IOException {
        byte[] c = side("add.hex", 'c');
        for (int n = 0; n < c.length; n++) {
            assertThat(ControlProtocol.parseUpdate(c, n, TABLES)).as("%d of %d bytes", n, c.length).isInstanceOf(ControlProtocol.Incomplete.class);
        }
    }

    @Test
    void bytesThatAreNoUpdateAreRefusedWithTheirReason() throws IOException {
        byte[] c = side("add.hex", 'c');
        byte[] trailing = Arrays.copyOf(c, c.length + 1);
        assertThat(ControlProtocol.parseUpdate(trailing, trailing.length, TABLES)).isEqualTo(new ControlProtocol.Malformed("bytes after the end of an update"));
        byte[] unknownTable = {2, 0, 0, 0, 0, 0};
        assertThat(ControlProtocol.parseUpdate(unknownTable, unknownTable.length, TABLES))
                .isEqualTo(new ControlProtocol.Malformed("rules for table 2, which does not exist"));
        byte[] tooMany = {1, 0, 0, 1, 0};
        assertThat(ControlProtocol.parseUpdate(tooMany, tooMany.length, TABLES)).isEqualTo(new ControlProtocol.Malformed("received 256 rules (maximum 255)"));
        byte[] hugeCount = {1, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        assertThat(ControlProtocol.parseUpdate(hugeCount, hugeCount.length, TABLES)).isInstanceOf(ControlProtocol.Malformed.class);
        byte[] twice = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
        assertThat(ControlProtocol.parseUpdate(twice, twice.length, TABLES)).isEqualTo(new ControlProtocol.Malformed("table 1 sent twice"));
        ByteBuffer b = ByteBuffer.allocate(1 + 4 + ForwardRule.SIZE + 1).put((byte) 1).putInt(1);
        ForwardRule.of(ForwardRule.TCP, null, "", 80, 80, 80, 0).write(b);
        byte[] noNul = b.array();
        Arrays.fill(noNul, 5 + 32, 5 + 48, (byte) 'x');
        assertThat(ControlProtocol.parseUpdate(noNul, noNul.length, TABLES)).isEqualTo(new ControlProtocol.Malformed("Interface name was not NULL terminated"));
        assertThat(ControlProtocol.MAX_UPDATE).as("three full tables").isEqualTo(3 * (5 + 255 * 56) + 1);
    }

    @Test
    void aRuleRoundTripsThroughItsBytes() throws Exception {
        ForwardRule r = new ForwardRule(InetAddress.getByName("192.0.2.1"), InetAddress.getByName("10.89.0.5"), "eth0", 8000, 8010, 80, ForwardRule.UDP,
                ForwardRule.WEAK);
        ByteBuffer b = ByteBuffer.allocate(ForwardRule.SIZE);
        r.write(b);
        assertThat(b.position()).isEqualTo(56);
        assertThat(ForwardRule.read(b.flip())).isEqualTo(r);
        assertThat(r).hasToString("UDP [192.0.2.1]%eth0:8000-8010  =>  10.89.0.5:80-90 (best effort)");
    }

    @Test
    void rulesPastaWouldRefuseAreRefusedInItsWords() throws Exception {
        int all = ControlProtocol.CAP_IPV4 | ControlProtocol.CAP_IPV6 | ControlProtocol.CAP_TCP | ControlProtocol.CAP_UDP | ControlProtocol.CAP_IFNAME;
        InetAddress v4 = InetAddress.getByName("127.0.0.1"), v6 = InetAddress.getByName("::1");
        assertThat(ForwardRule.of(ForwardRule.TCP, null, "", 90, 80, 90, 0).problem(all, List.of())).isEqualTo("Rule has invalid port range 90-80");
        assertThat(ForwardRule.of(ForwardRule.TCP, null, "", 0, 0, 90, 0).problem(all, List.of())).isEqualTo("Forwarding rule attempts to map from port 0");
        assertThat(ForwardRule.of(ForwardRule.TCP, null, "", 80, 81, 65535, 0).problem(all, List.of())).isEqualTo("Forwarding rule attempts to map to port 0");
        assertThat(ForwardRule.of(ForwardRule.TCP, null, "", 80, 80, 80, 0).problem(all & ~ControlProtocol.CAP_IPV6, List.of()))
                .isEqualTo("Dual stack forward, but IPv6 not enabled");
        assertThat(ForwardRule.of(ForwardRule.TCP, v6, "", 80, 80, 80, 0).problem(all & ~ControlProtocol.CAP_IPV6, List.of()))
                .isEqualTo("IPv6 forward, but IPv6 not enabled");
        assertThat(ForwardRule.of(1, v4, "", 80, 80, 80, 0).problem(all, List.of())).isEqualTo("Unsupported protocol 0x1 for forwarding rule");
        assertThat(ForwardRule.of(ForwardRule.UDP, v4, "", 80, 80, 80, 0x40).problem(all, List.of())).isEqualTo("Rule has invalid flags 0x40");
        ForwardRule wide = ForwardRule.of(ForwardRule.TCP, null, "", 8000, 8100, 8000, 0);
        assertThat(ForwardRule.of(ForwardRule.TCP, v4, "", 8080, 8080, 80, 0).problem(all, List.of(wide)))
                .isEqualTo("Forwarding configuration conflict: TCP [127.0.0.1]:8080  =>  80  versus TCP [*]:8000-8100  =>  8000-8100 ");
        assertThat(ForwardRule.of(ForwardRule.UDP, v4, "", 8080, 8080, 80, 0).problem(all, List.of(wide))).as("another protocol").isNull();
        assertThat(ForwardRule.of(ForwardRule.TCP, v6, "", 8080, 8080, 80, 0).conflicts(ForwardRule.of(ForwardRule.TCP, v4, "", 8080, 8080, 80, 0)))
                .as("another version").isFalse();
        ForwardRule toV6 = new ForwardRule(v4, v6, "", 80, 80, 80, ForwardRule.TCP, 0);
        assertThat(toV6.problem(all, List.of())).isEqualTo("Forward from IPv4 (127.0.0.1) to IPv6 (::1) unsupported");
        List<ForwardRule> full = new ArrayList<>();
        for (int p = 1; p <= 255; p++) full.add(ForwardRule.of(ForwardRule.TCP, v4, "", p, p, p, 0));
        assertThat(ForwardRule.of(ForwardRule.TCP, v4, "", 1000, 1000, 1000, 0).problem(all, full)).isEqualTo("Too many rules (maximum 255)");
    }
}
