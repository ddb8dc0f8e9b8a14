package org.fts.batching;

/** Nanosecond time for the batching layer; tests drive a manual one. */
@FunctionalInterface
public interface Clock {
    Clock SYSTEM = System::nanoTime;

    long nanoTime();
}
