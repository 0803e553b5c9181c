package io.jslirp.bypass;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A container seccomp profile (the JSON of containers-common's seccomp.json, which Podman's
 * {@code --security-opt seccomp=FILE} takes and hands the OCI runtime) turned into one whose
 * connects the socket bypass's agent answers: {@code connect} leaves every rule that names it, a
 * rule sends it to the agent (SCMP_ACT_NOTIFY), and {@code listenerPath} names the agent's socket.
 * Everything else stays as the profile has it. Every connect is then held for the agent, a unix
 * socket's too (the agent lets those go on at once): a profile's rule cannot look at the address's
 * family, only at its length, and one rule per call keeps libseccomp from refusing two actions for
 * the same call.
 */
public final class SeccompProfile {
    private SeccompProfile() {}

    /** base with the notify rule and listener (base is not changed); IllegalArgumentException when base is no such profile. */
    public static ObjectNode withNotify(JsonNode base, String listenerPath) {
        if (base == null || !base.isObject() || !base.path("syscalls").isArray()) {
            throw new IllegalArgumentException("not a seccomp profile: no \"syscalls\" array");
        }
        ObjectNode profile = base.deepCopy();
        ArrayNode rules = (ArrayNode) profile.get("syscalls");
        for (int i = rules.size() - 1; i >= 0; i--) {
            JsonNode rule = rules.get(i);
            if (rule.path("name").asText().equals("connect")) {
                rules.remove(i); // the older one-name form
                continue;
            }
            if (!(rule.get("names") instanceof ArrayNode names)) continue;
            for (int j = names.size() - 1; j >= 0; j--) if (names.get(j).asText().equals("connect")) names.remove(j);
            if (names.isEmpty()) rules.remove(i);
        }
        ObjectNode notify = rules.addObject();
        notify.putArray("names").add("connect");
        notify.put("action", "SCMP_ACT_NOTIFY");
        notify.putArray("args");
        notify.put("comment", "jslirp's socket bypass: connects decided by jslirp's agent");
        profile.put("listenerPath", listenerPath);
        return profile;
    }
}
