package org.fts.gc.jgroups;

import java.util.List;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeyProvider;

/**
 * The JGroups binding's own keys ({@code fts.gc.jgroups.ordering}, {@code stall_timeout}), for the configuration
 * reference; the stack's are fts-jgroups' ({@code JGroupsStackKeys}).
 */
public final class JGroupsKeys implements ConfigKeyProvider {
    @Override
    public List<ConfigKey<?>> keys() {
        return JGroupsBinding.OWN;
    }
}
