package io.jslirp.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Mutated API requests: bytes flipped, cut or inserted, values of the wrong type, huge numbers.
 * Nothing throws, every reply is one JSON object with either a result or "error", and every
 * forward opened has ports in range. Seeds as in {@code TcpFuzzTest} ({@code scripts/fuzz.sh}).
 */
class ApiFuzzTest {
    static final String[] REQUESTS = {
        "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"tcp\",\"host_addr\":\"127.0.0.1\",\"host_port\":8080,\"guest_port\":80}}",
        "{\"execute\":\"add_hostfwd\",\"arguments\":{\"proto\":\"udp\",\"host_port\":5353,\"guest_addr\":\"10.0.2.100\",\"guest_port\":53}}",
        "{\"execute\":\"list_hostfwd\"}",
        "{\"execute\":\"remove_hostfwd\",\"arguments\":{\"id\":1}}",
        "{\"execute\":\"get_counters\"}",
    };
    private static final String[] VALUES = {"-1", "0", "65536", "99999999999999999999", "1e3", "null", "true", "\"\"", "[]", "{}",
        "\"tcp\"", "\"::1\"", "\"0.0.0.0\"", "\"10.0.2.100\"", "1.5", "\"\\u0000\""};

    @Test
    void mutatedRequestsGetAnErrorOrAResultAndNeverThrow() throws Exception {
        ObjectMapper json = new ObjectMapper();
        long base = Long.getLong("jslirp.fuzz.base", 1);
        int seeds = Integer.getInteger("jslirp.fuzz.seeds", 300);
        int results = 0, errors = 0;
        for (long seed = base; seed < base + seeds; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            ApiRequestsTest.FakeTarget target = new ApiRequestsTest.FakeTarget();
            ApiRequests api = new ApiRequests(target);
            for (int i = 0; i < 20; i++) {
                byte[] request = mutate(rnd, REQUESTS[rnd.nextInt(REQUESTS.length)]);
                try {
                    if (answer(json, api, target, request)) results++;
                    else errors++;
                } catch (AssertionError | RuntimeException e) {
                    throw new AssertionError("fuzz seed " + seed + " (replay: -Djslirp.fuzz.base=" + seed + " -Djslirp.fuzz.seeds=1), request "
                            + new String(request, StandardCharsets.ISO_8859_1) + ": " + e.getMessage(), e);
                }
            }
        }
        System.out.printf("API fuzz: %d requests, %d results, %d errors%n", seeds * 20, results, errors);
        assertThat(results).isPositive();
        assertThat(errors).isPositive();
    }

    /**
     * Asks api, with target behind it, request: the reply is one JSON object with a result or an
     * error, never both, and every forward open has its host port in range. Returns whether it was a result.
     */
    static boolean answer(ObjectMapper json, ApiRequests api, ApiRequestsTest.FakeTarget target, byte[] request) throws Exception {
        String reply = api.reply(request, request.length);
        JsonNode node = json.readTree(reply);
        assertThat(node.isObject()).as(reply).isTrue();
        // list_hostfwd answers {"entries": [...]} without "return", as slirp4netns 1.2 does
        boolean result = node.has("return") || node.has("entries");
        assertThat(result != node.has("error")).as("a result or an error: %s", reply).isTrue();
        for (int port : target.taken) assertThat(port).isBetween(1, 65535);
        return result;
    }

    static byte[] mutate(SplittableRandom rnd, String request) {
        String r = request;
        if (rnd.nextBoolean()) { // a value replaced by one of another type or range
            int colon = r.indexOf(':', rnd.nextInt(r.length()));
            if (colon > 0) {
                int end = colon + 1;
                while (end < r.length() && ",}".indexOf(r.charAt(end)) < 0) end++;
                r = r.substring(0, colon + 1) + VALUES[rnd.nextInt(VALUES.length)] + r.substring(end);
            }
        }
        byte[] b = r.getBytes(StandardCharsets.UTF_8);
        switch (rnd.nextInt(5)) {
            case 0 -> b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
            case 1 -> b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length + 1));
            case 2 -> {
                int at = rnd.nextInt(b.length);
                byte[] c = new byte[b.length + 1];
                System.arraycopy(b, 0, c, 0, at);
                String tokens = "{}[]\",:\\ 0";
                c[at] = (byte) tokens.charAt(rnd.nextInt(tokens.length()));
                System.arraycopy(b, at, c, at + 1, b.length - at);
                b = c;
            }
            default -> { }
        }
        return b;
    }
}
