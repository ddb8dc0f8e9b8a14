package org.fts.config;

import java.time.Duration;
import java.util.List;

/** A provider registered for this module's tests only (src/test/resources/META-INF/services). */
public final class SampleKeys implements ConfigKeyProvider {
    static final ConfigKey<Duration> TIMEOUT = ConfigKey.duration("fts.sample.timeout", Duration.ofSeconds(5),
            Duration.ofMillis(1), Duration.ofMinutes(1), "how long a sample waits");
    static final ConfigKey<Integer> THREADS = ConfigKey.integer("fts.sample.threads", 4, 1, 64, "threads",
            "sample threads");

    @Override
    public List<ConfigKey<?>> keys() {
        return List.of(THREADS, TIMEOUT);
    }
}
