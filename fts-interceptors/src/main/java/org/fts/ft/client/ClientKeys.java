package org.fts.ft.client;

import java.util.List;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeyProvider;

/** The FT client's keys ({@link ClientConfig}). */
public final class ClientKeys implements ConfigKeyProvider {
    @Override
    public List<ConfigKey<?>> keys() {
        return ClientConfig.KEYS;
    }
}
