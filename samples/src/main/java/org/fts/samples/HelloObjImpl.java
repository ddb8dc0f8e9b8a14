package org.fts.samples;

import java.nio.charset.StandardCharsets;

import fts_samples.HelloObjPOA;
import org.fts.checkpoint.CheckpointableOperations;

/** The paper's HelloObj: stores one string, which is its state (UTF-8). */
public class HelloObjImpl extends HelloObjPOA implements CheckpointableOperations {
    /**
     * Fault injection: with {@code -Dsamples.poison=<replica id>:<V>}, that replica throws an OutOfMemoryError
     * when a client sets V, as if its heap ran out there and nowhere else (the fail-stop test).
     */
    static final String POISON_KEY = "samples.poison";
    private static final String POISON = poison();
    private String value;

    public HelloObjImpl() {
        this("");
    }

    /** Starts with {@code initial} (e.g. megabytes, to measure state transfer). */
    public HelloObjImpl(String initial) {
        this.value = initial;
    }

    @Override
    public synchronized void set(String s) {
        if (s.equals(POISON)) {
            // Fault injection for the fail-stop test: a local failure on this replica only.
            throw new OutOfMemoryError("injected by -D" + POISON_KEY + " (this replica only)");
        }
        value = s;
    }

    private static String poison() {
        String p = System.getProperty(POISON_KEY, "");
        int colon = p.indexOf(':');
        boolean here = colon > 0 && p.substring(0, colon).equals(System.getProperty("fts.replica.id"));
        return here ? p.substring(colon + 1) : "\u0000no poison\u0000";
    }

    @Override
    public synchronized String get() {
        return value;
    }

    @Override
    public synchronized byte[] get_state() {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public synchronized void set_state(byte[] s) {
        value = new String(s, StandardCharsets.UTF_8);
    }
}
