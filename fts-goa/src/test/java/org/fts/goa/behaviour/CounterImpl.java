package org.fts.goa.behaviour;

import java.nio.ByteBuffer;

import fts_goa_test.CounterPOA;
import org.fts.checkpoint.CheckpointableOperations;
import org.fts.checkpoint.InvalidState;

/** A counter: {@code increment()} returns the new value. Its state is the value, 4 bytes. */
public class CounterImpl extends CounterPOA implements CheckpointableOperations {
    private int value;

    @Override
    public synchronized int increment() {
        return ++value;
    }

    @Override
    public synchronized int value() {
        return value;
    }

    /** The value as the servant holds it (for tests that compare replicas' state directly). */
    public synchronized int valueNow() {
        return value;
    }

    @Override
    public synchronized void add(int delta) {
        value += delta;
    }

    @Override
    public synchronized byte[] get_state() {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    @Override
    public synchronized void set_state(byte[] s) throws InvalidState {
        if (s.length != 4) {
            throw new InvalidState("a counter's state is 4 bytes, not " + s.length);
        }
        value = ByteBuffer.wrap(s).getInt();
    }
}
