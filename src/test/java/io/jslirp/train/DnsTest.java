package io.jslirp.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class DnsTest {
    @Test
    void theHostAnswersAQueryWithOneARecordAfterItsQuestion() {
        byte[] q = Dns.query(0x1234, "host7.train.jslirp.test");
        byte[] a = Dns.answer(q, q.length, HostPeers.ANSWER);
        assertThat(a).isNotNull();
        ByteBuffer b = ByteBuffer.wrap(a);
        assertThat(b.getShort(0)).isEqualTo((short) 0x1234);
        assertThat(b.getShort(2) & 0xffff).as("a response, recursion available").isEqualTo(0x8180);
        assertThat(b.getShort(4)).as("questions").isEqualTo((short) 1);
        assertThat(b.getShort(6)).as("answers").isEqualTo((short) 1);
        assertThat(java.util.Arrays.copyOfRange(a, 12, q.length)).as("the question again").isEqualTo(java.util.Arrays.copyOfRange(q, 12, q.length));
        assertThat(b.getShort(q.length) & 0xffff).as("a pointer to the question's name").isEqualTo(0xc00c);
        assertThat(java.util.Arrays.copyOfRange(a, a.length - 4, a.length)).isEqualTo(HostPeers.ANSWER);
        assertThat(Dns.answers(a, a.length, 0x1234)).isTrue();
        assertThat(Dns.answers(a, a.length, 0x1235)).isFalse();
        assertThat(Dns.answers(q, q.length, 0x1234)).as("a query is no answer").isFalse();
    }

    @Test
    void whatIsNoSingleQuestionQueryGetsNoAnswer() {
        byte[] q = Dns.query(1, "a.test");
        assertThat(Dns.answer(q, 11, HostPeers.ANSWER)).as("shorter than a header").isNull();
        byte[] response = Dns.answer(q, q.length, HostPeers.ANSWER);
        assertThat(Dns.answer(response, response.length, HostPeers.ANSWER)).as("a response").isNull();
        byte[] two = q.clone();
        two[5] = 2;
        assertThat(Dns.answer(two, two.length, HostPeers.ANSWER)).as("two questions").isNull();
        assertThat(Dns.answer(q, q.length - 3, HostPeers.ANSWER)).as("cut in its question").isNull();
    }
}
