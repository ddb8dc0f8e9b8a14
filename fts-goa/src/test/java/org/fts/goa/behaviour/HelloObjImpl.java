package org.fts.goa.behaviour;

import java.nio.charset.StandardCharsets;

import fts_goa_test.HelloObjPOA;
import org.fts.checkpoint.CheckpointableOperations;

/** The paper's HelloObj: stores one string, which is its state (UTF-8). */
public class HelloObjImpl extends HelloObjPOA implements CheckpointableOperations {
    private String value;

    public HelloObjImpl() {
        this("");
    }

    /** Starts with {@code initial}. */
    public HelloObjImpl(String initial) {
        this.value = initial;
    }

    @Override
    public synchronized void set(String s) {
        value = s;
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
