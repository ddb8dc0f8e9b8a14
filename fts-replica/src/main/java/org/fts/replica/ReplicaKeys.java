package org.fts.replica;

import java.util.List;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeyProvider;

/** The replica runner's keys. */
public final class ReplicaKeys implements ConfigKeyProvider {
    /** Which providers the runner activates. */
    public static final ConfigKey<List<String>> SERVANTS = ConfigKey.list("fts.replica.servants", List.of(),
            "replica runner: the servant providers to activate, by name (org.fts.replica.ServantProvider on the "
                    + "class path); empty: every provider found");
    /** Where the runner writes object group references. */
    public static final ConfigKey<String> IOR_DIR = ConfigKey.optionalString("fts.replica.ior_dir",
            "replica runner: a directory where it writes each object's group reference as <id>.ior once it serves");

    static final List<ConfigKey<?>> KEYS = List.of(SERVANTS, IOR_DIR);

    @Override
    public List<ConfigKey<?>> keys() {
        return KEYS;
    }
}
