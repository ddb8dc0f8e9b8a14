package org.fts.config;

/**
 * An address the configuration names could not be bound: another process holds it, or a connection of the previous
 * process still does (TCP's TIME_WAIT). Unlike a {@link ConfigException}, starting again later may succeed, so the
 * replica runner's exit status says a restart may help. The message names the key.
 */
public class ListenFailure extends IllegalStateException {
    private final String key;

    public ListenFailure(String key, String problem, Throwable cause) {
        super("FTS: " + key + " " + problem, cause);
        this.key = key;
    }

    /** The key whose address could not be bound, e.g. {@code fts.iiop.port}. */
    public String key() {
        return key;
    }
}
