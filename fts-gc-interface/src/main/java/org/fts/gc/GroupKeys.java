package org.fts.gc;

import java.util.ArrayList;
import java.util.List;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeyProvider;

/** The group-communication interface's keys: the binding, the group's own, durability (each binding lists its own). */
public final class GroupKeys implements ConfigKeyProvider {
    @Override
    public List<ConfigKey<?>> keys() {
        List<ConfigKey<?>> keys = new ArrayList<>();
        keys.add(GroupChannels.BINDING);
        keys.addAll(GroupConfig.KEYS);
        keys.addAll(Durability.KEYS);
        return keys;
    }
}
