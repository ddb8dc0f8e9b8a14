package org.fts.config;

/** A configuration value is missing, malformed or out of range. The message always names the key. */
public class ConfigException extends IllegalArgumentException {
    private final String key;

    public ConfigException(String key, String problem) {
        super("FTS configuration: " + key + " " + problem);
        this.key = key;
    }

    /** The offending key, e.g. {@code fts.gc}. */
    public String key() {
        return key;
    }
}
