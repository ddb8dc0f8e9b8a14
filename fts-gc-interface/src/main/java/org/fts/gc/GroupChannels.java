package org.fts.gc;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.UUID;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates channels of the binding named by {@code fts.gc}. */
public final class GroupChannels {
    private static final Logger LOG = LoggerFactory.getLogger(GroupChannels.class);

    /** Which group-communication binding to use. */
    public static final ConfigKey<String> BINDING = ConfigKey.choice("fts.gc", "jgroups",
            List.of("jgroups", "local", "raft"), "group-communication binding: jgroups (real network, FTS's own "
                    + "total order), raft (jgroups-raft's replicated log on the same stacks; module fts-gc-raft) or "
                    + "local (in-JVM)");

    private GroupChannels() {
    }

    /**
     * A new channel for member {@code memberName} (a fresh unique name when null), of the binding that
     * {@code fts.gc} names in {@code config}. The binding's keys are validated and logged.
     *
     * @throws org.fts.config.ConfigException naming the key if the configuration is invalid
     */
    public static GroupChannel create(Properties config, String memberName) {
        GroupBinding binding = binding(BINDING.get(config));
        List<ConfigKey<?>> keys = new ArrayList<>();
        keys.add(BINDING);
        keys.addAll(GroupConfig.KEYS);
        keys.addAll(Durability.KEYS);
        keys.addAll(binding.keys());
        ConfigKeys.validateAndLog(LOG, "group communication", config, keys);
        if (Durability.from(config).log() && !binding.logs()) {
            throw new org.fts.config.ConfigException(Durability.MODE.name(), "is log, which binding '"
                    + binding.alias() + "' does not implement (fts.gc=jgroups does)");
        }
        String name = memberName != null ? memberName : "m-" + UUID.randomUUID().toString().substring(0, 8);
        GroupChannel channel = binding.create(config, new MemberId(name));
        try {
            for (Instrumentation i : Instrumentation.installed()) {
                i.created(config, channel);
            }
        } catch (RuntimeException e) {
            channel.close();
            throw e;
        }
        return channel;
    }

    /** The binding registered under {@code alias}. */
    public static GroupBinding binding(String alias) {
        GroupBinding b = bindings().get(alias);
        if (b == null) {
            throw new org.fts.config.ConfigException(BINDING.name(),
                    "names binding '" + alias + "', which is not on the class path (have " + bindings().keySet() + ")");
        }
        return b;
    }

    /** Every binding on the class path, by alias. */
    public static Map<String, GroupBinding> bindings() {
        Map<String, GroupBinding> all = new TreeMap<>();
        for (GroupBinding b : ServiceLoader.load(GroupBinding.class, GroupChannels.class.getClassLoader())) {
            all.put(b.alias(), b);
        }
        return all;
    }
}
