package org.fts.samples;

import fts_samples.CounterPOA;

/** A counter: {@code increment()} returns the new value. */
public class CounterImpl extends CounterPOA {
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
}
