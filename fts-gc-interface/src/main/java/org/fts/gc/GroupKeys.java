package org.fts.gc;

import java.util.ArrayList;
import java.util.List;

import org.fts.batching.BatchingConfig;
import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeyProvider;
import org.fts.gc.jgroups.JGroupsBinding;
import org.fts.gc.local.LocalBinding;

/** The group-communication module's keys: the binding, the group's own, each binding's, batching. */
public final class GroupKeys implements ConfigKeyProvider {
    @Override
    public List<ConfigKey<?>> keys() {
        List<ConfigKey<?>> keys = new ArrayList<>();
        keys.add(GroupChannels.BINDING);
        keys.addAll(GroupConfig.KEYS);
        keys.addAll(Durability.KEYS);
        keys.addAll(new JGroupsBinding().keys());
        keys.addAll(new LocalBinding().keys());
        keys.addAll(BatchingConfig.KEYS);
        return keys;
    }
}
