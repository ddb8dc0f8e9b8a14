package org.fts.gc.jgroups;

import java.util.List;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeyProvider;

/** The JGroups binding's keys ({@code fts.gc.jgroups.*}), for the configuration reference. */
public final class JGroupsKeys implements ConfigKeyProvider {
    @Override
    public List<ConfigKey<?>> keys() {
        return new JGroupsBinding().keys();
    }
}
