package org.fts.gc;

import java.util.List;
import java.util.Properties;

import org.fts.config.ConfigKey;

/**
 * A group-communication implementation, selected by its short alias in {@code fts.gc}. Bindings are found
 * with {@link java.util.ServiceLoader}; FTS ships {@code jgroups}, {@code raft} and {@code local}.
 */
public interface GroupBinding {

    /** The alias users write in {@code fts.gc}, e.g. {@code jgroups}. */
    String alias();

    /** The binding's own configuration keys (validated and logged when a channel is created). */
    List<ConfigKey<?>> keys();

    /**
     * Whether the binding implements {@code fts.durability=log} ({@link Durability}): its members log what they
     * acknowledge and recover from their logs. False by default.
     */
    default boolean logs() {
        return false;
    }

    /**
     * A new, not yet joined channel for member {@code self}.
     *
     * @throws org.fts.config.ConfigException if the binding's configuration is invalid
     */
    GroupChannel create(Properties config, MemberId self);
}
