package org.fts.gc;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The group channels created in this JVM (told by {@link TestInstrumentation}), by group and replica id, so that a
 * test or a harness replica reaches the channel an adaptor joined with: to inject faults into it or read its view.
 * Held weakly: a closed, dropped channel goes.
 */
public final class OpenChannels {
    private static final Map<String, WeakReference<GroupChannel>> BY_REPLICA = new ConcurrentHashMap<>();

    private OpenChannels() {
    }

    /** Keyed by the adaptor's {@code fts.group} (its default "fts" where unset) and the member's replica id. */
    static void created(Properties config, GroupChannel channel) {
        BY_REPLICA.put(key(config.getProperty("fts.group", "fts"), channel.self().replica()),
                new WeakReference<>(channel));
    }

    /** The last channel created for replica {@code replicaId} of {@code group} in this JVM. */
    public static GroupChannel of(String group, String replicaId) {
        WeakReference<GroupChannel> ref = BY_REPLICA.get(key(group, replicaId));
        GroupChannel ch = ref == null ? null : ref.get();
        if (ch == null) {
            throw new IllegalStateException("no channel of replica " + replicaId + " in group " + group
                    + " was created in this JVM");
        }
        return ch;
    }

    /** The channels created in this JVM that are still held. */
    public static List<GroupChannel> all() {
        List<GroupChannel> out = new ArrayList<>();
        BY_REPLICA.values().forEach(r -> {
            GroupChannel ch = r.get();
            if (ch != null) {
                out.add(ch);
            }
        });
        return out;
    }

    private static String key(String group, String replicaId) {
        return group + "/" + replicaId;
    }
}
