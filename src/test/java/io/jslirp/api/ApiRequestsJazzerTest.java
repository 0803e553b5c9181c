package io.jslirp.api;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jslirp.check.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Coverage-guided: any sequence of API socket requests (records, {@link Seeds#records}) to one
 * API over a fake target. Each reply is one JSON object with a result or an error, never an
 * exception, and the forwards open all have host ports in range ({@link ApiFuzzTest#answer}).
 */
class ApiRequestsJazzerTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @FuzzTest(maxDuration = "4s")
    void requestsGetAResultOrAnError(byte[] input) throws Exception {
        ApiRequestsTest.FakeTarget target = new ApiRequestsTest.FakeTarget();
        ApiRequests api = new ApiRequests(target);
        for (byte[] request : Seeds.records(input)) ApiFuzzTest.answer(JSON, api, target, request);
    }

    /** ApiFuzzTest's requests as they are and mutated, a few to an input. */
    @Test
    @EnabledIfSystemProperty(named = Seeds.WRITE, matches = "true")
    void writeSeeds() {
        Map<String, byte[]> seeds = new TreeMap<>();
        for (int i = 0; i < ApiFuzzTest.REQUESTS.length; i++) {
            seeds.put("request-" + i, Seeds.records(List.of(ApiFuzzTest.REQUESTS[i].getBytes(StandardCharsets.UTF_8))));
        }
        seeds.put("add-list-remove", Seeds.records(List.of(ApiFuzzTest.REQUESTS[0].getBytes(StandardCharsets.UTF_8),
                ApiFuzzTest.REQUESTS[2].getBytes(StandardCharsets.UTF_8), ApiFuzzTest.REQUESTS[3].getBytes(StandardCharsets.UTF_8))));
        for (int seed = 1; seed <= 12; seed++) {
            SplittableRandom rnd = new SplittableRandom(seed);
            List<byte[]> requests = new ArrayList<>();
            for (int i = 0; i < 3; i++) requests.add(ApiFuzzTest.mutate(rnd, ApiFuzzTest.REQUESTS[rnd.nextInt(ApiFuzzTest.REQUESTS.length)]));
            seeds.put("mutated-" + seed, Seeds.records(requests));
        }
        Seeds.write(getClass(), "requestsGetAResultOrAnError", seeds);
    }
}
