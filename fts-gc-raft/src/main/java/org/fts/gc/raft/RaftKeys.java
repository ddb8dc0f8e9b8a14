package org.fts.gc.raft;

import java.util.List;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeyProvider;

/** The raft binding's own keys, for the configuration reference (the jgroups binding's are declared there). */
public final class RaftKeys implements ConfigKeyProvider {
    @Override
    public List<ConfigKey<?>> keys() {
        return RaftBinding.OWN;
    }
}
