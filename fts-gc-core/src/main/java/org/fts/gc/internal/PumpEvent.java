package org.fts.gc.internal;

import org.fts.gc.Epoch;
import org.fts.gc.MemberId;
import org.fts.gc.View;

/** What a {@link DeliveryPump} hands over; {@code due} is the System.nanoTime() before which it is not delivered. */
sealed interface PumpEvent {
    long due();

    /** Whether it wakes a lingering delivery thread ({@link Wakeups}): every event but a deferrable broadcast. */
    default boolean urgent() {
        return true;
    }

    record Broadcast(MemberId sender, byte[] payload, long due, boolean urgent) implements PumpEvent {
    }

    record Direct(MemberId sender, byte[] payload, long due) implements PumpEvent {
    }

    record ViewChange(View view, long due) implements PumpEvent {
    }

    record Opened(Epoch epoch, long due) implements PumpEvent {
    }

    record NotPrimary(View view, String reason, long due) implements PumpEvent {
    }

    record Stop(long due) implements PumpEvent {
    }

    record Task(Runnable task, long due) implements PumpEvent {
    }

    record Restore(long position, byte[] state, long due) implements PumpEvent {
    }

    record CheckpointDue(org.fts.gc.Checkpoint checkpoint, long due) implements PumpEvent {
    }

    record FellBehind(long due) implements PumpEvent {
    }

    record Skipped(long missed, long due) implements PumpEvent {
    }
}
