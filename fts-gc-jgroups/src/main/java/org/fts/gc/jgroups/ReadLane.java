package org.fts.gc.jgroups;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;

import org.fts.gc.FailStop;
import org.fts.gc.MemberId;
import org.fts.order.TotalOrder;

/**
 * The read barriers' messages off JGroups' threads (docs/reads.md, "Threads"): each is handled, in arrival order,
 * by one thread of its own. Their handling may wait for the sequencer's monitor, which the sequencer holds while
 * it multicasts an order under flow control; on JGroups' pool, the pongs of every read round queued behind that
 * monitor until the pool was full, the credits that would have ended the wait found no thread, and the sequencer
 * never sent, delivered or installed a view again (chaos {@code pause} seed 62: 199 pool threads blocked in
 * {@code ReadConfirmer.ponged}, the delivery thread in {@code MFC} holding the sequencer). Here at most this one
 * thread waits.
 */
final class ReadLane implements AutoCloseable {
    private final ExecutorService thread;

    ReadLane(String name) {
        this.thread = Executors.newSingleThreadExecutor(FailStop.threads("fts-reads-" + name));
    }

    /**
     * Queues {@code msg} for {@code handler} on this lane's thread if it is a read barrier's message: whether it was
     * one (taken, or dropped once the lane is closed). Never blocks.
     */
    boolean offer(MemberId src, byte[] msg, BiConsumer<MemberId, byte[]> handler) {
        if (!TotalOrder.isReadMessage(msg)) {
            return false;
        }
        try {
            thread.execute(() -> handler.accept(src, msg));
        } catch (RejectedExecutionException closed) {
            // the channel is closing: a read barrier's message matters to nobody any more
        }
        return true;
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
