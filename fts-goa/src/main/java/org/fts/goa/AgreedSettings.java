package org.fts.goa;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigReference;

/**
 * The settings every replica of a group must share (docs/configuration.md, "Settings the group agrees on"): a
 * replica counting majorities against another N, delivering before a majority holds a broadcast, keeping no log,
 * ordering another way, or evicting replies at another bound would let the replicas' histories or reply caches
 * part. Each value is the resolved one (the default when unset; {@code fts.group.size} as counted, 0 meaning the
 * number of {@code fts.replicas}). The execution lanes ({@code fts.pool.background}) agree too: with one, requests get a {@link RequestContext}
 * and may create objects; with more, neither. Per-replica settings (batching policy, request threads, ports,
 * placement) may differ.
 */
final class AgreedSettings {
    /** The keys compared, in this order. */
    static final List<String> KEYS = List.of("fts.group.size", "fts.delivery", "fts.durability", "fts.gc",
            "fts.gc.jgroups.ordering", "fts.cache.max_entries", "fts.cache.ttl", "fts.cache.margin",
            "fts.servants.independent", "fts.pool.background", "fts.objects.max", "fts.divergence.window", "fts.outcalls",
            "fts.group.voters", "fts.gc.raft.members");
    /**
     * Keys compared as sets, whatever order each replica lists them in. {@code fts.gc.raft.members} is the raft
     * group's first members: jgroups-raft applies the log's membership changes on top of it, so it must be the same
     * list everywhere, new replicas included (docs/membership.md).
     */
    private static final java.util.Set<String> SETS = java.util.Set.of("fts.group.voters", "fts.gc.raft.members");

    private final Map<String, String> values;
    private final long fingerprint;

    private AgreedSettings(Map<String, String> values) {
        this.values = values;
        this.fingerprint = fingerprint(encode());
    }

    /** This replica's settings, from its properties and its resolved group size. */
    static AgreedSettings of(Properties props, int groupSize) {
        Map<String, String> v = new LinkedHashMap<>();
        for (String key : KEYS) {
            if (key.equals("fts.group.size")) {
                v.put(key, Integer.toString(groupSize));
                continue;
            }
            if (SETS.contains(key)) {   // a set: the same whatever order each replica lists it in
                java.util.TreeSet<String> ids = new java.util.TreeSet<>();
                for (String id : props.getProperty(key, "").split(",")) {
                    if (!id.isBlank()) {
                        ids.add(id.trim());
                    }
                }
                v.put(key, String.join(",", ids));
                continue;
            }
            ConfigKey<?> declared = ConfigReference.allKeys().stream().filter(k -> k.name().equals(key)).findFirst()
                    .orElse(null);
            v.put(key, declared != null ? String.valueOf(declared.get(props)) : props.getProperty(key, "").trim());
        }
        return new AgreedSettings(v);
    }

    /** A 64-bit digest of the values, never 0 (0 on the whiteboard means "not published"). */
    long fingerprint() {
        return fingerprint;
    }

    /** The values as {@code key=value} lines, for another replica. */
    String encode() {
        StringBuilder b = new StringBuilder();
        values.forEach((k, val) -> b.append(k).append('=').append(val).append('\n'));
        return b.toString();
    }

    /** Parses what {@link #encode} wrote. */
    static Map<String, String> decode(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                out.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return out;
    }

    /**
     * Each key whose value differs from {@code theirs}, with both values, e.g. "fts.delivery is uniform here, agreed
     * at r2".
     */
    List<String> differences(Map<String, String> theirs, String them) {
        List<String> out = new ArrayList<>();
        for (String key : KEYS) {
            String mine = values.get(key);
            String other = theirs.getOrDefault(key, "(not set: another version of FTS)");
            if (!mine.equals(other)) {
                out.add(key + " is " + mine + " here, " + other + " at " + them);
            }
        }
        return out;
    }

    private static long fingerprint(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            long f = 0;
            for (int i = 0; i < 8; i++) {
                f = (f << 8) | (d[i] & 0xff);
            }
            return f == 0 ? 1 : f;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
