package org.fts.config;

import java.util.List;
import java.util.Properties;
import java.util.StringJoiner;

import org.slf4j.Logger;

/** Helpers over a set of declared keys: validate all at once, and log the values in effect. */
public final class ConfigKeys {
    private ConfigKeys() {
    }

    /**
     * Reads every key (so that a bad value fails at start, naming its key, rather than at first use) and
     * logs one line with the effective values, marking those that are defaults.
     */
    public static void validateAndLog(Logger log, String component, Properties props, List<ConfigKey<?>> keys) {
        StringJoiner line = new StringJoiner(", ", component + " configuration: ", "");
        for (ConfigKey<?> key : keys) {
            line.add(key.name() + "=" + effective(key, props) + (key.isSet(props) ? "" : " (default)"));
        }
        log.info("{}", line);
    }

    private static <T> String effective(ConfigKey<T> key, Properties props) {
        return key.format(key.get(props));
    }
}
