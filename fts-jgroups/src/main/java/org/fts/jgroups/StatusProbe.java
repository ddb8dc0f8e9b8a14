package org.fts.jgroups;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import org.jgroups.JChannel;
import org.jgroups.stack.DiagnosticsHandler;

/**
 * Answers JGroups' {@code probe} key {@value #KEY} with a member's standing in the group ({@link
 * org.fts.gc.GroupChannel#standing()}) and the application's status, each field as {@code fts.<name>=<value>}:
 * what {@code fts status} reads. JGroups serves probes on the transport's diagnostics port (the shipped stacks:
 * TCP, on {@code fts.jgroups.bind_addr} only, {@code fts.jgroups.probe_port}); a probe never blocks the group.
 */
public final class StatusProbe implements DiagnosticsHandler.ProbeHandler {
    /** The probe key: {@code probe.sh fts}, or one TCP line {@code fts} to the diagnostics port. */
    public static final String KEY = "fts";

    private final Supplier<Map<String, String>> standing;
    private final Supplier<Map<String, String>> status;

    private StatusProbe(Supplier<Map<String, String>> standing, Supplier<Map<String, String>> status) {
        this.standing = standing;
        this.status = status;
    }

    /** Registers the handler with {@code channel}'s transport (harmless when its diagnostics are off). */
    public static void register(JChannel channel, Supplier<Map<String, String>> standing,
                                Supplier<Map<String, String>> status) {
        channel.getProtocolStack().getTransport().registerProbeHandler(new StatusProbe(standing, status));
    }

    @Override
    public Map<String, String> handleProbe(String... keys) {
        for (String key : keys) {
            if (KEY.equals(key)) {
                return fields();
            }
        }
        return null;
    }

    private Map<String, String> fields() {
        Map<String, String> out = new LinkedHashMap<>();
        try {
            standing.get().forEach((k, v) -> out.put(KEY + "." + k, oneLine(v)));
            status.get().forEach((k, v) -> out.put(KEY + "." + k, oneLine(v)));
        } catch (RuntimeException e) {
            out.put(KEY + ".error", oneLine(e.toString()));
        }
        return out;
    }

    /** A value on one line: the probe answer is {@code key=value} lines. */
    private static String oneLine(String v) {
        return v == null ? "" : v.replace('\r', ' ').replace('\n', ' ');
    }

    @Override
    public String[] supportedKeys() {
        return new String[] {KEY};
    }
}
