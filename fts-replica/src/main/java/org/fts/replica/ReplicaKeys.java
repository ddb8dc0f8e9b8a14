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

    /** Who listens on the replica's endpoint (OAPort, or OASSLPort for a TLS-only replica) for the group's requests. */
    public static final ConfigKey<String> LISTENER = ConfigKey.choice("fts.replica.listener", "goa",
            List.of("goa", "jacorb"), "replica runner: who serves the group's objects on the replica's endpoint "
                    + "(OAPort, or OASSLPort for a TLS-only replica): 'goa', the adaptor's own IIOP listener "
                    + "(fts.iiop.port takes that port, speaking TLS with JacORB's keys on a TLS-only replica, and "
                    + "JacORB listens on a port of its own choosing for anything else); 'jacorb', JacORB's listener");

    static final List<ConfigKey<?>> KEYS = List.of(SERVANTS, IOR_DIR, LISTENER);

    @Override
    public List<ConfigKey<?>> keys() {
        return KEYS;
    }
}
