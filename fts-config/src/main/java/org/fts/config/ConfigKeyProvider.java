package org.fts.config;

import java.util.List;

/**
 * A module's declaration of its configuration keys, found with {@link java.util.ServiceLoader} (listed in the
 * module's {@code META-INF/services/org.fts.config.ConfigKeyProvider}). The registry made of every provider on
 * the class path is what {@code bin/fts config} prints, what docs/configuration.md is checked against, and
 * what start-up checks unknown {@code fts.*} properties against ({@link ConfigKeys#checkNames}). A module
 * validates the keys it lists when its component starts.
 */
public interface ConfigKeyProvider {

    /** The keys this module declares, each exactly once. */
    List<ConfigKey<?>> keys();
}
