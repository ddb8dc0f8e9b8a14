package org.fts.gc.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.fts.gc.ReadBarrier;

/**
 * Read barriers whose position was confirmed (by the sequencer, or raft's leader), waiting for their member to
 * deliver up to it (docs/reads.md). Not thread-safe: guarded by its owner's monitor. {@link #release} runs where the
 * member hands deliveries to its pump, so a barrier's {@code ready} is queued right behind the delivery of its
 * position.
 */
public final class ReadWaiters {
    private record Waiter(ReadBarrier barrier, long deadline) {
    }

    private final TreeMap<Long, List<Waiter>> byPosition = new TreeMap<>();

    /** Queues {@code barriers}' {@code ready} behind the delivery of {@code position}: now, if delivered already. */
    public void add(long position, long delivered, List<ReadBarrier> barriers, long deadline, DeliveryPump pump) {
        if (position <= delivered) {
            pump.task(() -> barriers.forEach(ReadBarrier::ready));
            return;
        }
        List<Waiter> at = byPosition.computeIfAbsent(position, p -> new ArrayList<>());
        barriers.forEach(b -> at.add(new Waiter(b, deadline)));
    }

    /**
     * Like {@link #add}, but hands nothing to the pump: returns true if {@code position} was delivered already (the
     * caller makes the barriers ready, outside its owner's monitor), else keeps them waiting.
     */
    public boolean addUnlessDelivered(long position, long delivered, List<ReadBarrier> barriers, long deadline) {
        if (position <= delivered) {
            return true;
        }
        List<Waiter> at = byPosition.computeIfAbsent(position, p -> new ArrayList<>());
        barriers.forEach(b -> at.add(new Waiter(b, deadline)));
        return false;
    }

    /** After the member delivered up to {@code delivered}: the barriers waiting for it are ready. */
    public void release(long delivered, DeliveryPump pump) {
        while (!byPosition.isEmpty() && byPosition.firstKey() <= delivered) {
            List<Waiter> ready = byPosition.pollFirstEntry().getValue();
            pump.task(() -> ready.forEach(w -> w.barrier().ready()));
        }
    }

    /** The barriers waiting since before {@code now}'s deadline, or all of them ({@code now} = Long.MAX_VALUE). */
    public List<ReadBarrier> expire(long now) {
        List<ReadBarrier> out = new ArrayList<>();
        var it = byPosition.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, List<Waiter>> e = it.next();
            e.getValue().removeIf(w -> {
                if (now == Long.MAX_VALUE || now - w.deadline() >= 0) {
                    out.add(w.barrier());
                    return true;
                }
                return false;
            });
            if (e.getValue().isEmpty()) {
                it.remove();
            }
        }
        return out;
    }

    public boolean isEmpty() {
        return byPosition.isEmpty();
    }
}
