package org.fts.jgroups;

import java.util.List;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeyProvider;

/** The keys of the JGroups stack and of the group's security ({@code fts.jgroups.*}), for the reference. */
public final class JGroupsStackKeys implements ConfigKeyProvider {
    @Override
    public List<ConfigKey<?>> keys() {
        return JGroupsStack.keys();
    }
}
