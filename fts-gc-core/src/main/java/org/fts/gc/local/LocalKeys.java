package org.fts.gc.local;

import java.util.List;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeyProvider;

/** The in-JVM binding's keys, for the registry (the binding itself is found as a {@code GroupBinding}). */
public final class LocalKeys implements ConfigKeyProvider {
    @Override
    public List<ConfigKey<?>> keys() {
        return new LocalBinding().keys();
    }
}
